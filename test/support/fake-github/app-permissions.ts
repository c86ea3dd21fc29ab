// The fake GitHub's App permissions: what its one installation holds (a test revokes or grants one,
// as an owner does when they accept the App's new permissions or never did), and GitHub's refusal of a
// request the token's permissions do not cover. An installation token keeps the permissions the
// installation held when it was minted, as on GitHub: a grant reaches the bot only with a new token,
// while a permission the installation loses is gone from its tokens at once (a token never holds more
// than its installation does now).
// The fake enforces the permissions it can name an operation's need for, from the category GitHub files
// each REST operation under (`checks`, `commits/statuses`, `pulls`, `issues`, `git`, `repos/contents`),
// and a merge's own (`contents: write`). It enforces `contents`, `pull_requests` and `issues` only at the
// write level (their reads are spread over GraphQL the fake does not check), so a test may lower those
// to `read` but not take them away; revoking any other is refused, so a test never believes it took away
// what the fake does not check.
import type { Operation } from '../contract/openapi.ts';
import type { HandlerResult } from './context.ts';

export type PermissionLevel = 'read' | 'write';

/** What the fake's one installation holds unless a test says otherwise: all the bot asks for. */
export const defaultInstallationPermissions: Readonly<Record<string, PermissionLevel>> = {
  actions: 'read',
  checks: 'write',
  contents: 'write',
  issues: 'write',
  metadata: 'read',
  pull_requests: 'write',
  statuses: 'write',
};

/** The permissions the fake checks on each request, and the lowest level a test may leave of each. */
export const enforcedPermissions: ReadonlyMap<string, PermissionLevel | 'none'> = new Map([
  ['checks', 'none'],
  ['statuses', 'none'],
  ['contents', 'read'],
  ['pull_requests', 'read'],
  ['issues', 'read'],
]);

const rank: Record<PermissionLevel, number> = { read: 1, write: 2 };

/** The permission GitHub files an operation's category under; undefined: the fake does not check it. */
const permissionOfCategory = (x: { category?: string; subcategory?: string }): string | undefined => {
  if (x.category === 'checks') return 'checks';
  if (x.category === 'commits' && x.subcategory === 'statuses') return 'statuses';
  if (x.category === 'pulls') return 'pull_requests';
  if (x.category === 'issues') return 'issues';
  if (x.category === 'git' || (x.category === 'repos' && x.subcategory === 'contents')) return 'contents';
  return undefined;
};

/** The App permission an operation needs; undefined: not enforced (reads of the write-only ones included). */
export const permissionNeeded = (
  operation: Operation,
): { name: string; level: PermissionLevel } | undefined => {
  // Merging a PR writes the repository's contents, whatever the category (GitHub: "Contents" write).
  if (operation.operationId === 'pulls/merge') return { name: 'contents', level: 'write' };
  const name = permissionOfCategory(
    (operation.def['x-github'] ?? {}) as { category?: string; subcategory?: string },
  );
  if (!name) return undefined;
  const level: PermissionLevel = operation.method.toUpperCase() === 'GET' ? 'read' : 'write';
  if (level === 'read' && enforcedPermissions.get(name) === 'read') return undefined;
  return { name, level };
};

/** What a token minted with `minted` may do now: never more than the installation holds (`now`). */
export const heldNow = (
  minted: Readonly<Record<string, PermissionLevel>>,
  now: Readonly<Record<string, PermissionLevel>>,
): Record<string, PermissionLevel> => {
  const out: Record<string, PermissionLevel> = {};
  for (const [name, level] of Object.entries(minted)) {
    const has = now[name];
    if (has) out[name] = rank[has] < rank[level] ? has : level;
  }
  return out;
};

/** Whether `held` covers `need` (write covers read). */
export const holds = (
  held: Readonly<Record<string, PermissionLevel>>,
  need: { name: string; level: PermissionLevel },
): boolean => {
  const h = held[need.name];
  return h !== undefined && rank[h] >= rank[need.level];
};

/**
 * GitHub's answer to a request the App's token may not make: 403 "Resource not accessible by
 * integration", the operation's documentation URL, and the `X-Accepted-GitHub-Permissions` header
 * naming the permission that would have been accepted.
 */
export const missingPermissionAnswer = (
  operation: Operation,
  need: { name: string; level: PermissionLevel },
): HandlerResult => {
  const docs =
    (operation.def.externalDocs as { url?: string } | undefined)?.url ?? 'https://docs.github.com/rest';
  return {
    status: 403,
    headers: { 'x-accepted-github-permissions': `${need.name}=${need.level}` },
    body: { message: 'Resource not accessible by integration', documentation_url: docs, status: '403' },
  };
};

/** What a test changes of the default from the start: a level, or `none` for a permission not held. */
export type PermissionChanges = Record<string, PermissionLevel | 'none'>;

/** The installation's permissions, changed by a test: `set('checks', undefined)` takes checks away. */
export const installationPermissionsOf = (initial: PermissionChanges = {}) => {
  const held: Record<string, PermissionLevel> = { ...defaultInstallationPermissions };
  const api = {
    /** A copy of what the installation holds now (what a token minted now gets). */
    now: (): Record<string, PermissionLevel> => ({ ...held }),
    set(name: string, level: PermissionLevel | undefined): void {
      const lowest = enforcedPermissions.get(name);
      if (lowest === undefined)
        throw new Error(`the fake GitHub does not enforce the ${name} permission; it cannot take it away`);
      if (level === undefined && lowest !== 'none')
        throw new Error(`the fake GitHub enforces only ${name}: write; lower it to read instead`);
      if (level === undefined) delete held[name];
      else held[name] = level;
    },
  };
  for (const [name, level] of Object.entries(initial)) api.set(name, level === 'none' ? undefined : level);
  return api;
};
