// The fake GitHub's App permissions: what its one installation holds (a test revokes or grants one,
// as an owner does when they accept the App's new permissions or never did), and GitHub's refusal of a
// request the token's permissions do not cover. An installation token keeps the permissions the
// installation held when it was minted, as on GitHub: a grant reaches the bot only with a new token.
// The fake enforces the permissions it can name an operation's need for (GitHub files each REST
// operation under a category: `checks`, and `commits/statuses`); revoking any other is refused, so a
// test never believes it took away what the fake does not check.
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

/** The permissions the fake checks on each request (the others are always granted). */
export const enforcedPermissions: ReadonlySet<string> = new Set(['checks', 'statuses']);

const rank: Record<PermissionLevel, number> = { read: 1, write: 2 };

/** The App permission an operation needs, from the category GitHub files it under; undefined: not enforced. */
export const permissionNeeded = (
  operation: Operation,
): { name: string; level: PermissionLevel } | undefined => {
  const x = (operation.def['x-github'] ?? {}) as { category?: string; subcategory?: string };
  const name =
    x.category === 'checks'
      ? 'checks'
      : x.category === 'commits' && x.subcategory === 'statuses'
        ? 'statuses'
        : undefined;
  if (!name) return undefined;
  return { name, level: operation.method.toUpperCase() === 'GET' ? 'read' : 'write' };
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
      if (!enforcedPermissions.has(name))
        throw new Error(`the fake GitHub does not enforce the ${name} permission; it cannot take it away`);
      if (level === undefined) delete held[name];
      else held[name] = level;
    },
  };
  for (const [name, level] of Object.entries(initial)) api.set(name, level === 'none' ? undefined : level);
  return api;
};
