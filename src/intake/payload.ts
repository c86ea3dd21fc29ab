// Helpers shared by the per-forge normalisers: schema checks that fail with the path of the bad field,
// the blitz signal words, and the command events one comment yields.
import type { z } from 'zod';
import { parseCommands } from '../commands/parse.ts';
import { AppError } from '../errors.ts';
import type { Actor, CommandEvent } from './events.ts';

/** Parse a payload with its schema; a failure is AppError `invalid_payload` naming the field's path. */
export const parsePayload = <S extends z.ZodType>(schema: S, payload: unknown, what: string): z.output<S> => {
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
  throw new AppError('invalid_payload', `${what} payload: ${path}: ${issue?.message ?? 'invalid'}`, {
    path,
    event: what,
  });
};

export const toActor = (user: { login: string; type?: string }): Actor => ({
  login: user.login,
  type: user.type === 'Bot' ? 'Bot' : user.type === 'Organization' ? 'Organization' : 'User',
});

/** `[blitz]` anywhere in a milestone's title or description marks it for a run. */
export const hasBlitzMarker = (text: string | null | undefined): boolean => /\[blitz\]/i.test(text ?? '');

/** The label that starts a run for the issue's milestone. */
export const isBlitzLabel = (name: string | null | undefined): boolean =>
  (name ?? '').toLowerCase() === 'blitz';

/** Every command line of a comment, in order, valid or not, as command events. */
export const commandEventsOf = (body: string, base: Omit<CommandEvent, 'kind' | 'parsed'>): CommandEvent[] =>
  parseCommands(body).map((parsed) => ({ kind: 'command', ...base, parsed }));
