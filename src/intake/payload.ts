// Helpers shared by the per-forge normalisers: schema checks that fail with the path of the bad field,
// the blitz signal words, and the command events one comment yields.
import type { z } from 'zod';
import { parseCommands } from '../commands/parse.ts';
import { AppError } from '../errors.ts';
import type { Actor, CommandEvent, ForgeEvent, Normalized } from './events.ts';

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

export const accepted = (events: ForgeEvent[]): Normalized =>
  events.length > 0 ? { outcome: 'accepted', events } : { outcome: 'ignored', reason: 'nothing for the bot' };

export const ignored = (reason: string): Normalized => ({ outcome: 'ignored', reason });

/** The fields both forges' pull_request payloads carry, as each forge's schema parsed them. */
interface PullRequestPayload {
  action: string;
  number: number;
  pull_request: {
    head: { ref: string; sha: string };
    base: { ref: string };
    merged?: boolean | null;
    merge_commit_sha?: string | null;
  };
}

type EventBase = Pick<
  Extract<ForgeEvent, { kind: 'pr-opened' }>,
  'forge' | 'repo' | 'sender' | 'installationId'
>;

/** A pull_request delivery as events; `synchronizeAction` is the forge's name for "new commits pushed". */
export const pullRequestEvents = (
  p: PullRequestPayload,
  base: EventBase,
  synchronizeAction: string,
): Normalized => {
  const pr = p.pull_request;
  switch (p.action) {
    case 'opened':
    case 'reopened':
      return accepted([
        { kind: 'pr-opened', ...base, number: p.number, headRef: pr.head.ref, baseRef: pr.base.ref },
      ]);
    case synchronizeAction:
      return accepted([{ kind: 'pr-synchronized', ...base, number: p.number, headSha: pr.head.sha }]);
    case 'closed':
      return accepted([
        pr.merged
          ? {
              kind: 'pr-merged',
              ...base,
              number: p.number,
              headRef: pr.head.ref,
              baseRef: pr.base.ref,
              ...(pr.merge_commit_sha ? { mergeCommitSha: pr.merge_commit_sha } : {}),
            }
          : { kind: 'pr-closed', ...base, number: p.number },
      ]);
    default:
      return ignored(`pull_request.${p.action} is not followed`);
  }
};
