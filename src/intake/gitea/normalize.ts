// Gitea webhook payload → ForgeEvent[]. Dispatches on X-Gitea-Event-Type (the specific hook type:
// issue_label, pull_request_comment, pull_request_sync …), falling back to X-Gitea-Event. Gitea sends
// no milestone or dependency webhooks: the reconcile loop reads those from the API instead.

import { planLabels } from '../../plan/types.ts';
import { issueContentHash } from '../content-hash.ts';
import type { ForgeEvent, Normalized } from '../events.ts';
import {
  accepted,
  commandEventsOf,
  ignored,
  isBlitzLabel,
  parsePayload,
  pullRequestEvents,
} from '../payload.ts';
import { giteaFeedbackEvents, normalizeGiteaFeedback } from './normalize-feedback.ts';
import { giteaIssueCommentSchema, giteaIssuesSchema, giteaPullRequestSchema } from './schema.ts';

const approvedLabel = planLabels.approved;

type Common = { repository: { name: string; owner: { login: string } }; sender: { login: string } };

const baseOf = (p: Common) => ({
  forge: 'gitea' as const,
  repo: { owner: p.repository.owner.login, name: p.repository.name },
  // Gitea marks no account as a bot in payloads: bots are told apart by login (GITEA_BOT_LOGIN, allow-list).
  sender: { login: p.sender.login, type: 'User' as const },
});

export const normalizeGitea = (eventType: string, payload: unknown): Normalized => {
  if ((giteaFeedbackEvents as readonly string[]).includes(eventType))
    return normalizeGiteaFeedback(eventType, payload);
  switch (eventType) {
    case 'issue_comment':
    case 'pull_request_comment': {
      const p = parsePayload(giteaIssueCommentSchema, payload, eventType);
      if (p.action !== 'created') return ignored(`${eventType}.${p.action} is not a command`);
      return accepted(
        commandEventsOf(p.comment.body ?? '', {
          ...baseOf(p),
          sender: { login: p.comment.user.login, type: 'User' },
          issueNumber: p.issue.number,
          isPullRequest: Boolean(p.is_pull) || Boolean(p.issue.pull_request),
          commentId: p.comment.id,
        }),
      );
    }
    case 'issues': {
      const p = parsePayload(giteaIssuesSchema, payload, eventType);
      if (p.action === 'closed')
        return accepted([{ kind: 'issue-closed', ...baseOf(p), issueNumber: p.issue.number }]);
      if (p.action === 'reopened')
        return accepted([{ kind: 'issue-reopened', ...baseOf(p), issueNumber: p.issue.number }]);
      return ignored(`issues.${p.action} is not followed`);
    }
    case 'issue_label':
    case 'issue_milestone': {
      // Gitea's label_updated carries the whole label set, not the label added: the signal is "the
      // issue now has label blitz and a milestone", which is safe to see twice (a run is started once).
      const p = parsePayload(giteaIssuesSchema, payload, eventType);
      const { milestone, labels } = p.issue;
      // Approval: the sender changed the labels and left `blitz/approved` on (Gitea does not say which
      // label changed, so a writer's label change with it present counts as adding it).
      const approval: ForgeEvent[] =
        p.action === 'label_updated' && (labels ?? []).some((l) => l.name === approvedLabel)
          ? [
              {
                kind: 'label-added',
                ...baseOf(p),
                issueNumber: p.issue.number,
                label: approvedLabel,
                ...(p.issue.title !== undefined
                  ? { contentHash: issueContentHash(p.issue.title, p.issue.body) }
                  : {}),
              },
            ]
          : [];
      const relevant = p.action === 'label_updated' || p.action === 'milestoned';
      if (!relevant || !milestone || !(labels ?? []).some((l) => isBlitzLabel(l.name))) {
        if (approval.length) return accepted(approval);
        return ignored(`${eventType}.${p.action} carries no signal`);
      }
      return accepted([
        {
          kind: 'milestone-signal',
          ...baseOf(p),
          milestone: { number: milestone.id, title: milestone.title },
          source: 'label',
          issueNumber: p.issue.number,
        },
        ...approval,
      ]);
    }
    case 'pull_request':
    case 'pull_request_sync': {
      const p = parsePayload(giteaPullRequestSchema, payload, eventType);
      return pullRequestEvents(p, baseOf(p), 'synchronized');
    }
    default:
      return ignored(`event ${eventType} is not followed`);
  }
};
