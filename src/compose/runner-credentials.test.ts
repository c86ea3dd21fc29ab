import { describe, expect, it } from 'vitest';
import type { Forge, RepoRef } from '../forges/types.ts';
import type { RunRecord } from '../store/run-store.ts';
import { runnerCredentials } from './runner-credentials.ts';

// A forge that only knows how to hand out clone credentials, naming itself in them.
const forgeNamed = (label: string): Forge =>
  ({
    kind: label.startsWith('gitea') ? 'gitea' : 'github',
    cloneCredentials: async (repo: RepoRef) => ({
      url: `https://${label}/${repo.owner}/${repo.name}.git`,
      username: label,
      password: `${label}-token`,
    }),
  }) as unknown as Forge;

const run = (over: Partial<RunRecord>): RunRecord =>
  ({
    id: 'r1',
    kind: 'blitz',
    forge: 'github',
    repo: 'acme/app',
    state: 'running',
    options: {},
    ...over,
  }) as RunRecord;

const setup = (live: RunRecord[], configured: ('github' | 'gitea')[]) => {
  const asked: unknown[] = [];
  const provider = runnerCredentials({
    runs: { listLiveRunHeads: async () => live },
    forges: async (t) => {
      asked.push(t);
      return forgeNamed(t.forge === 'gitea' ? 'gitea' : `github-${t.installationId ?? 'by-repo'}`);
    },
    configured,
  });
  return { provider, asked };
};

describe('runner credentials', () => {
  it('come from the forge and installation of the live run of the repository', async () => {
    const { provider, asked } = setup(
      [run({ repo: 'Acme/App', forge: 'github', installationId: 9 })],
      ['github', 'gitea'],
    );
    expect(await provider({ owner: 'acme', name: 'app' })).toEqual({
      username: 'github-9',
      token: 'github-9-token',
    });
    expect(asked).toEqual([{ forge: 'github', repo: { owner: 'acme', name: 'app' }, installationId: 9 }]);
  });

  it('with one forge configured and no live run, come from that forge (looked up by repository)', async () => {
    const { provider } = setup([], ['gitea']);
    expect(await provider({ owner: 'acme', name: 'lib' })).toEqual({
      username: 'gitea',
      token: 'gitea-token',
    });
  });

  it('with two forges and no live run, are none rather than a guess', async () => {
    const { provider, asked } = setup([run({ repo: 'acme/other' })], ['github', 'gitea']);
    expect(await provider({ owner: 'acme', name: 'app' })).toBeUndefined();
    expect(asked).toEqual([]);
  });
});
