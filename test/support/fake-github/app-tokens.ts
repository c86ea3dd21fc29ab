// The fake GitHub's installation access tokens (`POST /app/installations/{id}/access_tokens`), as
// GitHub mints them: a token limited to the repositories (`repositories` names on the installation's
// account, or `repository_ids`) and the permissions the request asks for, each at most what the
// installation holds (else 422), expiring an hour after it was minted. The grant is recorded so a test
// can assert what scope each token had, and a limited token is refused (404, as GitHub answers) on a
// repository outside it. A token keeps what the installation held when it was minted (`held`).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { World, WorldRepo } from '../world.ts';
import type { PermissionLevel } from './app-permissions.ts';

/** A fresh GitHub App key pair as PEM: the bot signs its JWT with `privateKey`, the fake checks with `publicKey`. */
export const appKeyPair = (): { publicKey: string; privateKey: string } =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });

export interface TokenGrant {
  token: string;
  /** `owner/name` of each repository the token may reach; undefined = every one of the installation. */
  repositories?: string[];
  /** What the request asked for; undefined = everything the installation holds. */
  permissions?: Record<string, string>;
  /** What the token may do: the installation's permissions when it was minted, limited to those asked for. */
  held: Record<string, PermissionLevel>;
  expiresAt: string;
}

type Answer = { status: number; body: Record<string, unknown>; grant?: TokenGrant };

const level = { read: 1, write: 2, admin: 3 } as Record<string, number>;

/** The answer to one access-token request whose JWT was already verified; `installation`: what it holds now. */
export const mintInstallationToken = (
  world: World,
  body: Record<string, unknown>,
  now: number,
  installation: Record<string, PermissionLevel>,
): Answer => {
  const repos = [...world.repos.values()];
  const account = repos[0]?.owner.toLowerCase();
  let chosen: WorldRepo[] | undefined;
  const names = body.repositories as string[] | undefined;
  const ids = body.repository_ids as number[] | undefined;
  if (names !== undefined || ids !== undefined) {
    chosen = [];
    for (const name of names ?? []) {
      const r = repos.find(
        (x) => x.owner.toLowerCase() === account && x.name.toLowerCase() === name.toLowerCase(),
      );
      if (!r)
        return unprocessable(
          'There is at least one repository that does not exist or is not accessible to the parent installation.',
        );
      chosen.push(r);
    }
    for (const id of ids ?? []) {
      const r = repos.find((x) => x.id === id);
      if (!r)
        return unprocessable(
          'There is at least one repository that does not exist or is not accessible to the parent installation.',
        );
      chosen.push(r);
    }
  }
  const asked = body.permissions as Record<string, string> | undefined;
  for (const [name, want] of Object.entries(asked ?? {})) {
    const held = installation[name];
    if (!held || (level[want] ?? 9) > (level[held] ?? 0))
      return unprocessable('The permissions requested are not granted to this installation.');
  }
  const token = `ghs_${randomBytes(12).toString('hex')}`;
  const expiresAt = new Date(now + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const held: Record<string, PermissionLevel> = asked
    ? Object.fromEntries(
        Object.entries({ ...asked, metadata: 'read' }).map(([k, v]) => [k, v === 'read' ? 'read' : 'write']),
      )
    : { ...installation };
  const grant: TokenGrant = {
    token,
    held,
    expiresAt,
    ...(chosen ? { repositories: chosen.map((r) => `${r.owner}/${r.name}`) } : {}),
    ...(asked ? { permissions: { ...asked, metadata: 'read' } } : {}),
  };
  return {
    status: 201,
    grant,
    body: {
      token,
      expires_at: expiresAt,
      permissions: grant.permissions ?? installation,
      repository_selection: chosen ? 'selected' : 'all',
    },
  };
};

const unprocessable = (message: string): Answer => ({
  status: 422,
  body: {
    message,
    documentation_url:
      'https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app',
  },
});

/** Whether a minted token may touch `owner/repo` (a request naming no repository is not limited). */
export const grantCovers = (grant: TokenGrant | undefined, owner?: string, repo?: string): boolean =>
  !grant?.repositories ||
  owner === undefined ||
  repo === undefined ||
  grant.repositories.some((r) => r.toLowerCase() === `${owner}/${repo}`.toLowerCase());
