import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyGiteaSignature } from './signature.ts';

const hex = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

describe('verifyGiteaSignature', () => {
  const body = '{"action":"created"}';
  it('accepts the hex HMAC-SHA256 of the body, in either case', () => {
    expect(verifyGiteaSignature('s', body, hex('s', body))).toBe(true);
    expect(verifyGiteaSignature('s', body, hex('s', body).toUpperCase())).toBe(true);
  });
  it.each([
    ['no signature', undefined],
    ['an empty signature', ''],
    ['another secret', hex('t', body)],
    ['the signature of another body', hex('s', `${body} `)],
    ['a GitHub-style prefixed value', `sha256=${hex('s', body)}`],
    ['a truncated signature', hex('s', body).slice(0, 63)],
    ['non-hex characters', 'z'.repeat(64)],
  ])('refuses %s', (_what, signature) => {
    expect(verifyGiteaSignature('s', body, signature)).toBe(false);
  });
});
