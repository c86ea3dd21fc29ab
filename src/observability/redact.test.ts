import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, redactDeep, redacted } from './redact.ts';

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 1024,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
});
const giteaToken = '6f1c0ffee5b1a7e2d9c4a3b2e1f0d9c8b7a6f5e4';
const webhookSecret = 'serve-e2e-webhook-secret';
const redact = createRedactor([giteaToken, webhookSecret, privateKey, undefined, 'short']);

describe('createRedactor', () => {
  it.each([
    ['a configured token', `token is ${giteaToken}.`],
    ['a webhook secret', `secret=${webhookSecret}`],
    ['the private key whole', `key:\n${privateKey}`],
    ['one line of the private key', `part ${privateKey.split('\n')[2]}`],
    ['the private key with \\n escapes', privateKey.replace(/\n/g, '\\n')],
    ['a token in base64', Buffer.from(giteaToken).toString('base64')],
    [
      'a git extraheader',
      `http.https://git.example/.extraheader=AUTHORIZATION: basic ${Buffer.from(`bot:${giteaToken}`).toString('base64')}`,
    ],
    ['a GitHub installation token', 'cloning with ghs_16C7e42F292c6912E7710c838347Ae178B4a'],
    ['a classic personal token', 'GH=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789'],
    ['a fine-grained personal token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'],
    ['an OAuth token', 'gho_16C7e42F292c6912E7710c838347Ae178B4a'],
    ['a user-to-server token', 'ghu_16C7e42F292c6912E7710c838347Ae178B4a'],
    ['a refresh token', 'ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9Dc86A1498'],
    ['a runner token', 'brt_0123456789abcdef_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefg'],
    ['a Bearer header', 'curl -H "Bearer eyJhbGciOiJSUzI1NiJ9.payload.sig"'],
    ['a Basic credential', `Basic ${Buffer.from('someone:hunter2hunter2').toString('base64')}`],
    [
      'a PEM block of another key',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
    ],
    ['a PEM block cut before its end', 'log: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC'],
  ])('replaces %s', (_what, text) => {
    const out = redact(text);
    expect(out).toContain(redacted);
    expect(out).not.toContain(giteaToken);
    expect(out).not.toContain(webhookSecret);
    expect(out).not.toMatch(/gh[pousr]_[A-Za-z0-9]{20}|github_pat_|brt_[0-9a-f]{16}_|MIIE|b3BlbnNz|eyJhbGci/);
  });

  it.each([
    'Basic usage: run /blitz M1',
    'Bearer tokens are not printed',
    'the token budget was 12,000 tokens',
    'short is not a secret',
    'ghs_ is the installation token prefix',
  ])('leaves ordinary text alone: %s', (text) => {
    expect(redact(text)).toBe(text);
  });

  it('never leaves a configured secret in any text it is embedded in (property)', () => {
    const r = createRedactor([giteaToken]);
    fc.assert(
      fc.property(fc.string(), fc.string(), (before, after) => {
        expect(r(`${before}${giteaToken}${after}`)).not.toContain(giteaToken);
      }),
    );
  });

  it('changes nothing in text holding no secret and no credential shape (property)', () => {
    const r = createRedactor([giteaToken]);
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z .,:\n]{0,200}$/), (text) => {
        expect(r(text)).toBe(text);
      }),
    );
  });

  it('redactDeep reaches every string of a stored final report', () => {
    const report = {
      status: `done ${giteaToken}`,
      uncertainties: [`used ${webhookSecret}`],
      outOfScopeBugs: [],
    };
    expect(JSON.stringify(redactDeep(report, redact))).not.toMatch(
      new RegExp(`${giteaToken}|${webhookSecret}`),
    );
  });
});
