import { describe, expect, it } from 'vitest';
import { openSqliteRunnerRegistry } from './runner-tokens-sqlite.ts';

describe('sqlite runner registry', () => {
  it('authenticates a created token and nothing after it is revoked', async () => {
    const r = openSqliteRunnerRegistry(':memory:');
    const { token, info } = await r.createToken('host-a');
    expect(token).toMatch(/^brt_[0-9a-f]{16}_/);
    expect(await r.authenticate(token)).toMatchObject({ id: info.id, name: 'host-a' });
    expect(await r.revokeToken('host-a')).toBe(true);
    expect(await r.authenticate(token)).toBeUndefined();
    expect(await r.revokeToken('host-a')).toBe(false);
    // A new token after revocation is a new identity; the old one stays dead.
    const again = await r.createToken('host-a');
    expect(await r.authenticate(again.token)).toMatchObject({ name: 'host-a' });
    expect(await r.authenticate(token)).toBeUndefined();
  });

  it('refuses a wrong secret for a real id, a malformed token and a second live token per name', async () => {
    const r = openSqliteRunnerRegistry(':memory:');
    const { token } = await r.createToken('host-a');
    const wrong =
      `${token.slice(0, -4)}AAAA` === token ? `${token.slice(0, -4)}BBBB` : `${token.slice(0, -4)}AAAA`;
    expect(await r.authenticate(wrong)).toBeUndefined();
    expect(await r.authenticate('Bearer nonsense')).toBeUndefined();
    await expect(r.createToken('host-a')).rejects.toMatchObject({ code: 'conflict' });
    await expect(r.createToken('bad name!')).rejects.toMatchObject({ code: 'bad_request' });
    expect((await r.listTokens()).map((t) => t.name)).toEqual(['host-a']);
  });

  it('keeps the store free of the token text', async () => {
    const r = openSqliteRunnerRegistry(':memory:');
    const { token } = await r.createToken('host-a');
    // brt_<id>_<secret>: the secret is base64url and may itself contain `_`, so take all after the id.
    const secret = /^brt_[0-9a-f]+_(.+)$/.exec(token)?.[1];
    expect(secret?.length).toBeGreaterThanOrEqual(20);
    expect(JSON.stringify(await r.listTokens())).not.toContain(secret);
  });

  it('raises a receipt sequence, never lowers it', async () => {
    const r = openSqliteRunnerRegistry(':memory:');
    const base = {
      attemptId: 'a1',
      runId: 'run',
      issueRepo: 'o/r',
      issueNumber: 1,
      jobQueue: 'q',
      jobId: 'j',
      runnerName: 'host-a',
    };
    await r.saveReceipt({ ...base, lastSeq: 5 }, 't');
    await r.saveReceipt({ ...base, lastSeq: 3 }, 't');
    expect((await r.getReceipt('a1'))?.lastSeq).toBe(5);
    await r.saveReceipt({ ...base, lastSeq: 9 }, 't');
    expect((await r.listReceiptsByJob('q', 'j')).map((x) => x.lastSeq)).toEqual([9]);
  });
});
