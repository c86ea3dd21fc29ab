// Reading a webhook body: a size cap that stops reading at the limit (413 without buffering the rest),
// the two content types the forges send, and JSON parsing with a 400 in words. Both GitHub and Gitea
// can send `application/x-www-form-urlencoded` with the JSON in a `payload` field; that is accepted.
import { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';

/** Forges send at most 25 MB, but nothing we read comes near 1 MiB. */
export const MAX_WEBHOOK_BYTES = 1024 * 1024;

/** The limit where the body is read through the web `Request` (no Node request under the app). */
export const webhookBodyLimit = (maxBytes = MAX_WEBHOOK_BYTES): MiddlewareHandler => {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge(maxBytes);
    },
  });
  return (c, next) =>
    (c.env as { incoming?: unknown } | undefined)?.incoming instanceof IncomingMessage
      ? next()
      : limit(c, next);
};

const tooLarge = (maxBytes: number) =>
  new HTTPException(413, { message: `webhook body is larger than ${maxBytes} bytes` });

/**
 * The body as text, read straight from Node's request where the server is @hono/node-server (no web
 * `Request`, `ReadableStream` or `AbortSignal` built for it: on the intake's hot path they cost more
 * than the signature check), with the same limit as `webhookBodyLimit`: a declared length over it is
 * refused before reading, and a body without one stops being read once it passes the limit (413; the
 * server drains or drops the rest). Elsewhere (`app.request` in tests, other runtimes) the route's
 * `webhookBodyLimit` and `c.req.text()`.
 */
export const webhookBodyText = (c: Context, maxBytes = MAX_WEBHOOK_BYTES): Promise<string> => {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  if (!(incoming instanceof IncomingMessage) || incoming.readableEnded) return c.req.text();
  const declared = incoming.headers['content-length'];
  if (declared !== undefined && !incoming.headers['transfer-encoding'] && Number(declared) > maxBytes)
    return Promise.reject(tooLarge(maxBytes));
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('aborted', onError);
      incoming.off('close', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        incoming.pause();
        reject(tooLarge(maxBytes));
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size).toString('utf8'));
    };
    const onError = () => {
      done();
      reject(new HTTPException(400, { message: 'webhook body could not be read to its end' }));
    };
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('error', onError);
    incoming.once('aborted', onError);
    // Closed before its end (whatever else was or was not emitted): never left waiting.
    incoming.once('close', onError);
  });
};

export type WebhookEncoding = 'json' | 'form';

/** The body's encoding from Content-Type, or 415 naming the two accepted types. */
export const webhookEncoding = (c: Context): WebhookEncoding => {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  throw new HTTPException(415, {
    message: `unsupported content type "${type || '(none)'}": send application/json or application/x-www-form-urlencoded`,
  });
};

/** The JSON text of the body: the body itself, or the `payload` field of a form body. */
export const payloadText = (raw: string, encoding: WebhookEncoding): string => {
  if (encoding === 'json') return raw;
  const payload = new URLSearchParams(raw).get('payload');
  if (payload === null) throw new HTTPException(400, { message: 'form body has no payload field' });
  return payload;
};

export const parseJsonPayload = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    throw new HTTPException(400, { message: 'webhook body is not valid JSON' });
  }
};

export const requiredHeader = (c: Context, name: string, status: 400 | 401 = 400): string => {
  const value = c.req.header(name);
  if (!value || value.trim() === '') throw new HTTPException(status, { message: `missing ${name} header` });
  if (value.length > 200) throw new HTTPException(400, { message: `${name} header is too long` });
  return value.trim();
};
