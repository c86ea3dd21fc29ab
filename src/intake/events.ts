// The one typed event every accepted webhook becomes, whichever forge sent it. Code past intake sees
// only ForgeEvent values, never a raw payload; the union is a zod schema so a test (or a replay from
// the store) can check a value is one.
import { z } from 'zod';
import { commandSchema, commandWords } from '../commands/schema.ts';

const repoRef = z.object({ owner: z.string().min(1), name: z.string().min(1) });
const issueRef = z.object({ repo: repoRef, number: z.number().int().positive() });

export const actorSchema = z.object({
  login: z.string().min(1),
  type: z.enum(['User', 'Bot', 'Organization']),
});

/** What every event carries: where it happened, who did it, and how to reach the forge again. */
const base = {
  forge: z.enum(['github', 'gitea']),
  repo: repoRef,
  sender: actorSchema,
  /** GitHub App installation that sent it; absent on Gitea (one token). */
  installationId: z.number().int().positive().optional(),
};

export const parsedCommandSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), command: commandSchema, raw: z.string(), line: z.number() }),
  z.object({
    ok: z.literal(false),
    raw: z.string(),
    line: z.number(),
    error: z.string(),
    usage: z.string(),
    word: z.enum(commandWords),
  }),
]);

export const forgeEventSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('command'),
    ...base,
    issueNumber: z.number().int().positive(),
    isPullRequest: z.boolean(),
    commentId: z.number().int().positive(),
    /** The parsed line: a valid command, or a malformed one the bot answers with usage. */
    parsed: parsedCommandSchema,
  }),
  z.object({
    kind: z.literal('milestone-signal'),
    ...base,
    milestone: z.object({ number: z.number().int().positive(), title: z.string() }),
    /** `[blitz]` in the milestone, or label `blitz` on an issue of it. */
    source: z.enum(['milestone', 'label']),
    /** The labelled issue, when the signal came from a label. */
    issueNumber: z.number().int().positive().optional(),
  }),
  z.object({
    kind: z.literal('dependency-changed'),
    ...base,
    change: z.enum(['added', 'removed']),
    blocked: issueRef,
    blocking: issueRef,
  }),
  z.object({
    kind: z.literal('sub-issue-changed'),
    ...base,
    change: z.enum(['added', 'removed']),
    parent: issueRef,
    child: issueRef,
  }),
  z.object({
    kind: z.literal('label-added'),
    ...base,
    issueNumber: z.number().int().positive(),
    /** The label the sender added (on Gitea: a label the issue carries after the sender's label change). */
    label: z.string().min(1),
    /** The issue's title and body when the label was added (intake/content-hash.ts): what an approval covers. */
    contentHash: z.string().optional(),
  }),
  z.object({ kind: z.literal('issue-closed'), ...base, issueNumber: z.number().int().positive() }),
  z.object({ kind: z.literal('issue-reopened'), ...base, issueNumber: z.number().int().positive() }),
  z.object({
    kind: z.literal('pr-opened'),
    ...base,
    number: z.number().int().positive(),
    headRef: z.string(),
    baseRef: z.string(),
  }),
  z.object({
    kind: z.literal('pr-synchronized'),
    ...base,
    number: z.number().int().positive(),
    headSha: z.string(),
  }),
  z.object({
    kind: z.literal('pr-merged'),
    ...base,
    number: z.number().int().positive(),
    headRef: z.string(),
    baseRef: z.string(),
    mergeCommitSha: z.string().optional(),
  }),
  z.object({ kind: z.literal('pr-closed'), ...base, number: z.number().int().positive() }),
  // The PR feedback loop (intake/*/normalize-feedback.ts): a check or status on a commit changed, or
  // someone reviewed a PR. Routed like any event: the repo's live runs look again.
  z.object({
    kind: z.literal('checks-changed'),
    ...base,
    headSha: z.string().min(1),
    /** The PRs whose head it is, when the forge says (GitHub check runs and suites). */
    pullNumbers: z.array(z.number().int().positive()),
  }),
  // GitHub: an owner accepted the App's new permissions on an installation covering `repo`. The adapter
  // drops its installation token (a new one carries them) and the repository's runs look again.
  z.object({ kind: z.literal('permissions-accepted'), ...base }),
  // The same, where GitHub names no repository: every live run of the installation's account looks again.
  z.object({
    kind: z.literal('installation-permissions-accepted'),
    forge: z.literal('github'),
    sender: actorSchema,
    installationId: z.number().int().positive(),
    /** The login of the account the App is installed on (its repositories are `account/…`). */
    account: z.string().min(1),
  }),
  z.object({
    kind: z.literal('review-changed'),
    ...base,
    number: z.number().int().positive(),
    change: z.enum(['submitted', 'edited', 'dismissed', 'comment']),
  }),
]);

export type ForgeEvent = z.infer<typeof forgeEventSchema>;
export type ForgeEventKind = ForgeEvent['kind'];
export type CommandEvent = Extract<ForgeEvent, { kind: 'command' }>;
export type Actor = z.infer<typeof actorSchema>;

/**
 * What normalising one delivery gives: the events (possibly none) or the reason it is ignored.
 * A payload that fails its schema throws AppError `invalid_payload` instead.
 */
export type Normalized =
  | { outcome: 'accepted'; events: ForgeEvent[] }
  | { outcome: 'ignored'; reason: string };
