// The spawn host: a small process of the bot's own that starts its short commands (git, a reviewer
// CLI, a budget probe) for it. Starting a process costs its parent time in proportion to the parent's
// memory (the kernel copies its page tables): about 1.5 ms from a process this size against 10 ms or
// more from a bot holding a few hundred MB, paid on the bot's one thread for every git command of every
// issue. The bot sends each command here (spawn-client.ts) and goes on; this runs it exactly as the bot
// would (`runHere`: own process group, timeout, cancel) and sends the result back. It holds no state
// but the commands in flight and exits when the bot's channel closes.
import { isAppError } from '../errors.ts';
import { runHere } from './exec.ts';
import type { HostFailure, HostReply, HostRequest } from './spawn-client.ts';

const inFlight = new Map<number, AbortController>();

/** A reply to a bot already gone (killed mid-command) fails with EPIPE: nobody waits, so it is dropped. */
const reply = (m: HostReply): void => {
  process.send?.(m, undefined, {}, () => undefined);
};

const failureOf = (err: unknown): HostFailure =>
  isAppError(err)
    ? { app: true, code: err.code, message: err.message, details: err.details }
    : {
        app: false,
        code: 'internal',
        message: err instanceof Error ? err.message : String(err),
        details: {},
      };

const perform = async (m: Extract<HostRequest, { t: 'run' }>): Promise<void> => {
  const abort = new AbortController();
  inFlight.set(m.id, abort);
  try {
    reply({ t: 'done', id: m.id, result: await runHere(m.argv, { ...m.opts, signal: abort.signal }) });
  } catch (err) {
    reply({ t: 'fail', id: m.id, error: failureOf(err) });
  } finally {
    inFlight.delete(m.id);
  }
};

process.on('message', (m: HostRequest) => {
  if (m.t === 'run') void perform(m);
  else if (m.t === 'cancel') inFlight.get(m.id)?.abort();
});
// The bot is gone (exited, or killed): nobody waits for a result. Commands still running are in their
// own process groups and end as they would have had the bot started them itself.
process.on('disconnect', () => process.exit(0));
