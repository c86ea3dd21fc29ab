// Reading a webhook body: a size cap that stops reading at the limit (413 without buffering the rest),
// the two content types the forges send, and JSON parsing with a 400 in words. Both GitHub and Gitea
// can send `application/x-www-form-urlencoded` with the JSON in a `payload` field; that is accepted.
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';

/** Forges send at most 25 MB, but nothing we read comes near 1 MiB. */
export const MAX_WEBHOOK_BYTES = 1024 * 1024;

export const webhookBodyLimit = (maxBytes = MAX_WEBHOOK_BYTES): MiddlewareHandler =>
  bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new HTTPException(413, { message: `webhook body is larger than ${maxBytes} bytes` });
    },
  });

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
