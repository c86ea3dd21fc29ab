// Plain webhook notifier: one JSON document per notice, for anything without its own notifier (a
// script, a relay, an alert rule). The body is the contract; see webhookBody.
import type { NotifyEvent, RunNotice, ShipPath } from './notice.ts';
import { noticeCommand, noticeMessage, noticeSentence } from './notice.ts';
import { jsonWebhookNotifier } from './notifier-of.ts';

export interface WebhookBody {
  event: NotifyEvent;
  repo: string;
  run: { id: string; kind: 'blitz' | 'fleet' | 'plan'; title: string };
  /** The run's title again (the milestone), as the first version of this body had it. */
  milestone: string;
  /** The issue it is about, or null. */
  issue: number | null;
  /** What happened, one sentence. */
  sentence: string;
  /** The sentence with where it happened and the tally: what a text-only client shows. */
  message: string;
  /** The preview URL when shipped; the run's page (or null) otherwise. */
  url: string | null;
  issuesShipped: number;
  /** How it shipped; null unless shipped. */
  path: ShipPath | null;
  /** The command that continues (`/blitz retry #12`), or null. */
  command: string | null;
  /** When a spend limit lifts (ISO), or null. */
  resetAt: string | null;
}

export const webhookBody = (notice: RunNotice): WebhookBody => ({
  event: notice.event,
  repo: notice.repo,
  run: notice.run,
  milestone: notice.run.title,
  issue: notice.issue ?? null,
  sentence: noticeSentence(notice),
  message: noticeMessage(notice),
  url: notice.url ?? null,
  issuesShipped: notice.issuesShipped,
  path: notice.event === 'shipped' ? (notice.path ?? null) : null,
  command: noticeCommand(notice) ?? null,
  resetAt:
    notice.resetAt && !Number.isNaN(Date.parse(notice.resetAt))
      ? new Date(notice.resetAt).toISOString()
      : null,
});

export const createWebhookNotifier = jsonWebhookNotifier('webhook', webhookBody);
