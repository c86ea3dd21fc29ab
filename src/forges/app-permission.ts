// A GitHub App permission the bot's installation lacks, as a typed fact: the adapter puts it on the
// `forbidden` AppError it throws (GitHub names it in `X-Accepted-GitHub-Permissions`, else the call's
// own need), the orchestrator reads it back with `missingPermissionOf`, and the planner blocks the run
// on it (plan/permission-block.ts) with words made from the type, never from GitHub's sentence.
import { isAppError } from '../errors.ts';

/** One App permission at one level, e.g. `checks` `read`. */
export interface AppPermission {
  name: string;
  level: 'read' | 'write';
}

/** How GitHub's settings pages and our notices write it: `checks:read`. */
export const formatPermission = (p: AppPermission): string => `${p.name}:${p.level}`;

/** A permission name as GitHub spells them (lower case words joined by `_`); anything else is not one. */
const permissionName = /^[a-z][a-z_]{1,40}$/;

/** `checks:read` (the adapters' `need`) as a permission; undefined when it is not one. */
export const parsePermission = (text: string | undefined): AppPermission | undefined => {
  const m = /^([a-z_]+)[:=](read|write|admin)$/.exec(text?.trim() ?? '');
  if (!m || !permissionName.test(m[1]!)) return undefined;
  return { name: m[1]!, level: m[2] === 'read' ? 'read' : 'write' };
};

/**
 * The permission of GitHub's `X-Accepted-GitHub-Permissions` header (`checks=read`; alternatives are
 * separated by `;`, the permissions of one by `,`): the first alternative's first permission.
 */
export const acceptedPermissionOf = (header: unknown): AppPermission | undefined => {
  if (typeof header !== 'string') return undefined;
  const first = header.split(';')[0]?.split(',')[0];
  return parsePermission(first);
};

/** The App permission a refused call lacked, from the AppError the adapter threw; undefined for any other error. */
export const missingPermissionOf = (err: unknown): AppPermission | undefined => {
  if (!isAppError(err, 'forbidden')) return undefined;
  const p = err.details.permission;
  if (typeof p !== 'object' || p === null) return undefined;
  const { name, level } = p as Record<string, unknown>;
  return typeof name === 'string' && permissionName.test(name) && (level === 'read' || level === 'write')
    ? { name, level }
    : undefined;
};
