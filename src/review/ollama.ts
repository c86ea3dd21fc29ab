// Asks a local model through the Ollama HTTP API: POST {host}/api/generate with
// `{ model, prompt, stream: false }`, the answer in `.response` (docs.ollama.com/api/generate,
// checked in the docs corpus). A timeout, an unreachable host, an HTTP error or an odd body are
// fixed phrases; the host is never repeated, since an operator's URL may carry credentials.
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { seconds } from './run-cli.ts';
import type { ReviewerAttempt } from './types.ts';

export const ollamaGenerateResponse = z.looseObject({ response: z.string(), done: z.boolean().optional() });

/** A reviewer's answer larger than this is refused rather than read into memory. */
export const maxOllamaBodyBytes = 2 * 1024 * 1024;

export interface OllamaOptions {
  /** `http://host:11434`, or Ollama's own `host:port` form (OLLAMA_HOST). */
  host: string | undefined;
  model: string | undefined;
  prompt: string;
  timeoutMs: number;
  signal: AbortSignal;
  fetch?: typeof fetch;
}

export const generateUrl = (host: string): string => {
  const base = /^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `http://${host}`;
  return `${base.replace(/\/+$/, '')}/api/generate`;
};

const readBounded = async (res: Response): Promise<string | undefined> => {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > maxOllamaBodyBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
};

export const askOllama = async (o: OllamaOptions): Promise<ReviewerAttempt> => {
  if (o.signal.aborted) throw new AppError('cancelled', 'The review was cancelled.');
  if (!o.host) return { ok: false, reason: 'has no Ollama host configured (OLLAMA_HOST)' };
  if (!o.model) return { ok: false, reason: 'has no model set' };
  const timeout = AbortSignal.timeout(o.timeoutMs);
  const signal = AbortSignal.any([o.signal, timeout]);
  const stopped = (): ReviewerAttempt => {
    if (o.signal.aborted) throw new AppError('cancelled', 'The review was cancelled.');
    return { ok: false, reason: `timed out after ${seconds(o.timeoutMs)}` };
  };
  let text: string | undefined;
  try {
    const res = await (o.fetch ?? fetch)(generateUrl(o.host), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ model: o.model, prompt: o.prompt, stream: false }),
      signal,
    });
    if (!res.ok) {
      await res.body?.cancel();
      return { ok: false, reason: `failed: the Ollama endpoint answered HTTP ${res.status}` };
    }
    text = await readBounded(res);
  } catch {
    if (signal.aborted) return stopped();
    return { ok: false, reason: 'failed: the Ollama endpoint is unreachable' };
  }
  if (text === undefined) return { ok: false, reason: 'failed: the Ollama answer was too large' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'failed: the Ollama endpoint answered with something other than JSON' };
  }
  const parsed = ollamaGenerateResponse.safeParse(json);
  if (!parsed.success) return { ok: false, reason: 'failed: the Ollama answer had no `response` text' };
  const answer = parsed.data.response.trim();
  return answer ? { ok: true, text: answer } : { ok: false, reason: 'printed no review' };
};
