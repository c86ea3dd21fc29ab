import { describe, expect, it } from 'vitest';
import type { Forge } from '../forges/types.ts';
import { loadRepoPolicy } from './repo-policy.ts';

const repo = { owner: 'acme', name: 'app' };
const base = { required: 'write' as const, botLogin: 'blitz-bot[bot]', allowedBots: ['ci-bot'] };

/** A forge whose `.github/blitz.yml` is whatever `file.text` holds at the time it is read. */
const forgeWith = (file: { text: string | undefined }) =>
  ({ kind: 'github', getFile: async () => file.text }) as unknown as Forge;

describe('loadRepoPolicy', () => {
  it('a repository may raise the permission and add bots; an edited file is read as it is now', async () => {
    const file: { text: string | undefined } = { text: 'permission: admin\nallowedBots: [deploy-bot]\n' };
    const forge = forgeWith(file);
    expect(await loadRepoPolicy(forge, repo, base)).toEqual({
      ok: true,
      policy: { ...base, required: 'admin', allowedBots: ['ci-bot', 'deploy-bot'] },
    });
    // The same text again answers the same; a changed text is not answered from what the old one said.
    expect(await loadRepoPolicy(forge, repo, base)).toMatchObject({
      ok: true,
      policy: { required: 'admin' },
    });
    file.text = 'permission: read\n';
    expect(await loadRepoPolicy(forge, repo, base)).toEqual({
      ok: true,
      policy: { ...base, required: 'write', allowedBots: ['ci-bot'] },
    });
    file.text = undefined;
    expect(await loadRepoPolicy(forge, repo, base)).toEqual({ ok: true, policy: base });
  });

  it('a file that does not parse stops commands with its errors in words, each time it is read', async () => {
    const forge = forgeWith({ text: 'permission: [\n' });
    for (let i = 0; i < 2; i++) {
      const policy = await loadRepoPolicy(forge, repo, base);
      expect(policy.ok).toBe(false);
      if (!policy.ok) expect(policy.reply).toContain('.github/blitz.yml');
    }
  });
});
