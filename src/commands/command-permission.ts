// The least permission a command needs, whatever the operator or the repository allow for the rest:
// steering a run that is already going (retry, skip, unhold, tell, the review, merge when green) is
// for people with write access even where `permission: read` lets readers start runs (issue 18).
import { type Permission, permissionRank } from '../forges/types.ts';
import type { Command } from './schema.ts';

const writersOnly = new Set<Command['name']>([
  'blitz-issue',
  'blitz-tell',
  'blitz-review',
  'merge-when-green',
]);

/** The permission this command needs when the policy asks for `required`: never less than it. */
export const commandPermission = (command: Command, required: Permission): Permission =>
  writersOnly.has(command.name) && permissionRank[required] < permissionRank.write ? 'write' : required;

/** The permission a comment's commands need together: the highest any one of them needs. */
export const commentPermission = (commands: readonly Command[], required: Permission): Permission =>
  commands.reduce<Permission>((most, c) => {
    const needed = commandPermission(c, required);
    return permissionRank[needed] > permissionRank[most] ? needed : most;
  }, required);
