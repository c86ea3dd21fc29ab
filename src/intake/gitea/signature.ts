// Gitea's webhook signature: X-Gitea-Signature is the hex HMAC-SHA256 of the signed bytes with the
// webhook secret. Compared in constant time so the check leaks nothing about the expected value.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const signGitea = (secret: string, body: string | Uint8Array): string =>
  createHmac('sha256', secret).update(body).digest('hex');

export const verifyGiteaSignature = (
  secret: string,
  body: string | Uint8Array,
  signature: string | undefined,
): boolean => {
  if (!signature || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = Buffer.from(signGitea(secret, body), 'hex');
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
};
