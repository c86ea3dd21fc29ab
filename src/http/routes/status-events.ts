// GET /runs/:id/events: server-sent events for the live run page. One `run-changed` event per burst
// of changes (changes that arrive while one is being written coalesce), a comment every 15 s so
// proxies keep the connection, and a cap on open streams so a crowd of tabs cannot pin the server.
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Logger } from '../../observability/logger.ts';
import { runLogger } from '../../status/log-context.ts';
import type { RunEvents } from '../../status/run-events.ts';

export const keepAliveMs = 15_000;

export const runEventStream = (opts: { events: RunEvents; maxStreams: number; logger: Logger }) => {
  let open = 0;
  return (c: Context, runId: string) => {
    const log = runLogger(opts.logger, { id: runId });
    if (open >= opts.maxStreams) {
      log.warn({ open }, 'status stream refused: too many open');
      return c.text('too many live status pages open; reload later', 503);
    }
    open++;
    log.debug({ open }, 'status stream opened');
    return streamSSE(
      c,
      async (stream) => {
        let pending = false;
        let aborted = false;
        let wake: (() => void) | undefined;
        const unsubscribe = opts.events.subscribe((id) => {
          if (id !== runId) return;
          pending = true;
          wake?.();
        });
        stream.onAbort(() => {
          aborted = true;
          wake?.();
        });
        try {
          await stream.writeSSE({ event: 'hello', data: JSON.stringify({ runId }) });
          let seq = 0;
          while (!aborted) {
            if (!pending) {
              let timer: NodeJS.Timeout | undefined;
              await new Promise<void>((resolve) => {
                wake = resolve;
                timer = setTimeout(resolve, keepAliveMs);
              });
              clearTimeout(timer);
              wake = undefined;
            }
            if (aborted) break;
            if (pending) {
              pending = false;
              seq++;
              await stream.writeSSE({
                event: 'run-changed',
                id: String(seq),
                data: JSON.stringify({ runId }),
              });
            } else {
              await stream.write(': keep-alive\n\n');
            }
          }
        } finally {
          unsubscribe();
          open--;
          log.debug({ open }, 'status stream closed');
        }
      },
      async () => {
        // A write to a closed connection: the finally above cleans up.
      },
    );
  };
};
