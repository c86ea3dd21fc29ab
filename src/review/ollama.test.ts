import { describe, expect, it } from 'vitest';
import { isAppError } from '../errors.ts';
import { askOllama, generateUrl, maxOllamaBodyBytes } from './ollama.ts';

const base = { host: 'http://ollama:11434', model: 'qwen', prompt: 'P', timeoutMs: 5_000 };
const answering =
  (body: string, status = 200): typeof fetch =>
  async () =>
    new Response(body, { status, headers: { 'content-type': 'application/json' } });

describe('generateUrl', () => {
  it("accepts a URL, a URL with a path prefix, and Ollama's bare host:port", () => {
    expect(generateUrl('http://127.0.0.1:11434')).toBe('http://127.0.0.1:11434/api/generate');
    expect(generateUrl('https://gpu.lan/ollama/')).toBe('https://gpu.lan/ollama/api/generate');
    expect(generateUrl('m5.local:11434')).toBe('http://m5.local:11434/api/generate');
  });
});

describe('askOllama', () => {
  const signal = new AbortController().signal;

  it('refuses a body larger than the cap instead of reading it all', async () => {
    const huge = JSON.stringify({ response: 'x'.repeat(maxOllamaBodyBytes) });
    const r = await askOllama({ ...base, signal, fetch: answering(huge) });
    expect(r).toEqual({ ok: false, reason: 'failed: the Ollama answer was too large' });
  });

  it('treats a non-JSON body and an empty response as failures', async () => {
    expect(await askOllama({ ...base, signal, fetch: answering('<html>proxy error</html>') })).toEqual({
      ok: false,
      reason: 'failed: the Ollama endpoint answered with something other than JSON',
    });
    expect(await askOllama({ ...base, signal, fetch: answering('{"response":"  "}') })).toEqual({
      ok: false,
      reason: 'printed no review',
    });
  });

  it('says a missing model instead of sending a request without one', async () => {
    let called = false;
    const r = await askOllama({
      ...base,
      model: undefined,
      signal,
      fetch: async () => {
        called = true;
        return new Response('{}');
      },
    });
    expect(r).toEqual({ ok: false, reason: 'has no model set' });
    expect(called).toBe(false);
  });

  it('throws cancelled when the caller aborts mid-request, rather than reporting a timeout', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const never: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    let err: unknown;
    try {
      await askOllama({ ...base, signal: controller.signal, fetch: never });
    } catch (e) {
      err = e;
    }
    expect(isAppError(err, 'cancelled')).toBe(true);
  });

  it('reports a timeout in seconds when the endpoint never answers', async () => {
    const never: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    expect(await askOllama({ ...base, timeoutMs: 50, signal, fetch: never })).toEqual({
      ok: false,
      reason: 'timed out after 0.1 s',
    });
  });
});
