// What a run is BLOCKED on (a hard blocker), as typed facts: the planner and the block step compare
// these, never the sentence, and the sentence for people is made from them here. A blocker reworded (a
// forge that words its 401 differently on every call) is the same blocker; two blockers that read
// alike are not.
import { type AppPermission, formatPermission } from '../forges/app-permission.ts';
import type { ForgeRefusal } from '../forges/hard-blocker.ts';
import { factsKey } from './facts-key.ts';

export type BlockCause =
  /** The forge refused the bot's credentials (401) or its access (403); `detail` is the forge's words. */
  | { kind: 'forge_refused'; refusal: ForgeRefusal['refusal']; detail: string }
  /** The repo config does not parse: its first error, how many more, and where all of them are posted. */
  | {
      kind: 'config_invalid';
      path: string;
      errors: { path: string; message: string }[];
      triggerIssue?: number;
    }
  /** A GitHub App permission the installation lacks and the bot cannot do without (plan/permission-block.ts). */
  | { kind: 'missing_permission'; permission: AppPermission; page?: string }
  /** The agent CLI `tool` of roster entry `entry` is not installed where `host` says (plan/tool-blocker.ts). */
  | { kind: 'missing_tool'; tool: string; entry: string; host: HostOf };

/** Where a missing tool was looked for: a remote runner, a named host, or the bot's own host. */
export type HostOf = { runner: string } | { host: string } | { bot: true };

/** The facts that make a blocker this one (a forge's own words about its refusal are not among them). */
const identityOf = (c: BlockCause): unknown => {
  if (c.kind === 'forge_refused') return { kind: c.kind, refusal: c.refusal };
  if (c.kind === 'missing_permission') return { kind: c.kind, permission: c.permission };
  return c;
};

/** A key for the blocker's identity: its notice and its comment are each sent once per key. */
export const blockerKey = (c: BlockCause): string => factsKey(identityOf(c));

/** True when both name the same blocker; a kept blocker from before causes were kept is never the same. */
export const sameBlocker = (a: BlockCause | undefined, b: BlockCause | undefined): boolean =>
  a !== undefined && b !== undefined && blockerKey(a) === blockerKey(b);

const hostWords = (h: HostOf): string =>
  'runner' in h ? `runner ${h.runner}` : 'host' in h ? `host ${h.host}` : "the bot's host";

/** What the bot cannot do without the permission, in a person's words. */
const withoutIt = (p: AppPermission): string => {
  switch (p.name) {
    case 'checks':
      return "read the CI results (check runs) of the workers' PRs, so nothing can merge";
    case 'statuses':
      return "read the commit statuses of the workers' PRs, so nothing can merge";
    case 'pull_requests':
      return p.level === 'read' ? "read the workers' PRs" : "open or update the workers' PRs";
    case 'contents':
      return p.level === 'read' ? "read the repository's branches" : 'push branches or merge PRs';
    case 'issues':
      return p.level === 'read'
        ? "read the milestone's issues"
        : 'comment on, label or close issues (nor tell anyone there)';
    default:
      return 'do its work on this repository';
  }
};

/** Where the permission is accepted, in words: the page, or how to find it. */
const where = (page: string | undefined): string =>
  page ?? "the installation's settings page (the owner's Settings → GitHub Apps → Configure)";

/** The blocker in one sentence, for the run's reason, its notice and its blocker issue. */
export const blockReasonOf = (c: BlockCause): string => {
  switch (c.kind) {
    case 'forge_refused':
      return c.refusal === 'credentials'
        ? `the forge refused the bot's credentials: ${c.detail}`
        : `the forge refused the bot access: ${c.detail}`;
    case 'config_invalid': {
      const first = (c.errors[0]?.message ?? 'unreadable').replace(/\s+/g, ' ').slice(0, 200);
      const more = c.errors.length > 1 ? ` and ${c.errors.length - 1} more` : '';
      const at = c.triggerIssue !== undefined ? `; all on #${c.triggerIssue}` : '';
      return `the repo config ${c.path} does not parse (${first}${more}${at}); push a fix`;
    }
    case 'missing_permission':
      return `the GitHub App installation lacks the \`${formatPermission(c.permission)}\` permission, without which the bot cannot ${withoutIt(c.permission)}; an admin accepts it at ${where(c.page)}`;
    case 'missing_tool':
      return `the agent CLI \`${c.tool}\` (roster entry ${c.entry}) is not installed on ${hostWords(c.host)}`;
  }
};
