// GitHub webhook payload → ForgeEvent[]. Pure: the event name and parsed JSON in, typed events out (or
// the reason the delivery is ignored). Edited comments are not commands: re-running a command because
// someone fixed a typo in an old comment would start work twice.

import { planLabels } from '../../plan/types.ts';
import { issueContentHash } from '../content-hash.ts';
import type { ForgeEvent, Normalized } from '../events.ts';
import {
  accepted,
  commandEventsOf,
  hasBlitzMarker,
  ignored,
  isBlitzLabel,
  parsePayload,
  pullRequestEvents,
  toActor,
} from '../payload.ts';
import { githubFeedbackEvents, normalizeGithubFeedback } from './normalize-feedback.ts';
import {
  githubInstallationSchema,
  githubIssueCommentSchema,
  githubIssueDependenciesSchema,
  githubIssuesSchema,
  githubMilestoneSchema,
  githubPullRequestSchema,
  githubSubIssuesSchema,
} from './schema.ts';

type Common = {
  repository: { name: string; owner: { login: string } };
  sender: { login: string; type: string };
};

const baseOf = (p: Common & { installation?: { id: number } | null | undefined }) => ({
  forge: 'github' as const,
  repo: { owner: p.repository.owner.login, name: p.repository.name },
  sender: toActor(p.sender),
  ...(p.installation ? { installationId: p.installation.id } : {}),
});

const linkedRef = (issue: { number: number; repository_url: string }) => {
  const [owner, name] = issue.repository_url.split('/').slice(-2);
  return { repo: { owner: owner!, name: name! }, number: issue.number };
};

/**
 * The events an App subscribes to (app.yml's `default_events`). Intake also follows `installation`
 * (`new_permissions_accepted`), which GitHub sends every App without a subscription.
 */
export const githubEvents = [
  'issue_comment',
  'issues',
  'milestone',
  'pull_request',
  'issue_dependencies',
  'sub_issues',
  ...githubFeedbackEvents,
] as const;

export const normalizeGithub = (event: string, payload: unknown): Normalized => {
  if ((githubFeedbackEvents as readonly string[]).includes(event))
    return normalizeGithubFeedback(event, payload);
  switch (event) {
    case 'issue_comment': {
      const p = parsePayload(githubIssueCommentSchema, payload, 'issue_comment');
      if (p.action !== 'created') return ignored(`issue_comment.${p.action} is not a command`);
      return accepted(
        commandEventsOf(p.comment.body ?? '', {
          ...baseOf(p),
          // The comment's author is who asked; on `created` it is also the sender.
          sender: toActor(p.comment.user),
          issueNumber: p.issue.number,
          isPullRequest: Boolean(p.issue.pull_request),
          commentId: p.comment.id,
        }),
      );
    }
    case 'issues': {
      const p = parsePayload(githubIssuesSchema, payload, 'issues');
      const base = baseOf(p);
      const number = p.issue.number;
      if (p.action === 'closed') return accepted([{ kind: 'issue-closed', ...base, issueNumber: number }]);
      if (p.action === 'reopened')
        return accepted([{ kind: 'issue-reopened', ...base, issueNumber: number }]);
      // Who added a label matters (a `blitz/approved` only counts from a writer): said as its own event.
      const labelAdded: ForgeEvent[] =
        p.action === 'labeled' && p.label?.name === planLabels.approved
          ? [
              {
                kind: 'label-added',
                ...base,
                issueNumber: number,
                label: p.label.name,
                ...(p.issue.title !== undefined
                  ? { contentHash: issueContentHash(p.issue.title, p.issue.body) }
                  : {}),
              },
            ]
          : [];
      const signalled =
        (p.action === 'labeled' && isBlitzLabel(p.label?.name)) ||
        (p.action === 'milestoned' && (p.issue.labels ?? []).some((l) => isBlitzLabel(l.name)));
      if (signalled && p.issue.milestone) {
        const { number: msNumber, title } = p.issue.milestone;
        return accepted([
          {
            kind: 'milestone-signal',
            ...base,
            milestone: { number: msNumber, title },
            source: 'label',
            issueNumber: number,
          },
          ...labelAdded,
        ]);
      }
      if (labelAdded.length) return accepted(labelAdded);
      return ignored(`issues.${p.action} carries no signal`);
    }
    case 'milestone': {
      const p = parsePayload(githubMilestoneSchema, payload, 'milestone');
      const { milestone } = p;
      if (
        (p.action === 'created' || p.action === 'edited') &&
        (hasBlitzMarker(milestone.title) || hasBlitzMarker(milestone.description))
      ) {
        return accepted([
          {
            kind: 'milestone-signal',
            ...baseOf(p),
            milestone: { number: milestone.number, title: milestone.title },
            source: 'milestone',
          },
        ]);
      }
      return ignored(`milestone.${p.action} carries no [blitz] marker`);
    }
    case 'pull_request': {
      const p = parsePayload(githubPullRequestSchema, payload, 'pull_request');
      return pullRequestEvents(p, baseOf(p), 'synchronize');
    }
    case 'issue_dependencies': {
      const p = parsePayload(githubIssueDependenciesSchema, payload, 'issue_dependencies');
      return accepted([
        {
          kind: 'dependency-changed',
          ...baseOf(p),
          change: p.action.endsWith('_added') ? 'added' : 'removed',
          blocked: linkedRef(p.blocked_issue),
          blocking: linkedRef(p.blocking_issue),
        },
      ]);
    }
    case 'sub_issues': {
      const p = parsePayload(githubSubIssuesSchema, payload, 'sub_issues');
      return accepted([
        {
          kind: 'sub-issue-changed',
          ...baseOf(p),
          change: p.action.endsWith('_added') ? 'added' : 'removed',
          parent: linkedRef(p.parent_issue),
          child: linkedRef(p.sub_issue),
        },
      ]);
    }
    case 'installation': {
      const p = parsePayload(githubInstallationSchema, payload, 'installation');
      if (p.action !== 'new_permissions_accepted') return ignored(`installation.${p.action} is not followed`);
      const repos = p.repositories ?? [];
      if (repos.length === 0) {
        // No repository named: the installation's account stands for them (runs keep no installation id).
        const account = p.installation.account?.login;
        if (!account) return ignored('installation.new_permissions_accepted names no repository nor account');
        return accepted([
          {
            kind: 'installation-permissions-accepted',
            forge: 'github',
            sender: toActor(p.sender),
            installationId: p.installation.id,
            account,
          },
        ]);
      }
      // One event per repository it covers: each repository's live runs look again (a blocked one goes on).
      return accepted(
        repos.map((r) => {
          const [owner = '', name = ''] = r.full_name.split('/');
          return {
            kind: 'permissions-accepted' as const,
            forge: 'github' as const,
            repo: { owner, name },
            sender: toActor(p.sender),
            installationId: p.installation.id,
          };
        }),
      );
    }
    default:
      return ignored(`event ${event} is not followed`);
  }
};
