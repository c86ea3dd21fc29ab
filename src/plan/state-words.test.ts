import { describe, expect, it } from 'vitest';
import { renderDashboard } from '../dashboard/render.ts';
import type { DashboardIssue } from '../dashboard/types.ts';
import { dashboardView } from '../dashboard/view.ts';
import { notifyEvents } from '../ship/notice.ts';
import { attentionOf, attentionStates } from '../status/attention.ts';
import { stateBadge } from '../status/html-layout.ts';
import type { RunRecord } from '../store/run-store.ts';
import { integrationReviewLine, reviewUnclear } from './readiness.ts';
import type { IntegrationReviewVerdict, RunSnapshot } from './snapshot.ts';
import {
  attentionStateWords,
  issueStateWords,
  noticeEventWords,
  outcomeStateWords,
  runStateWords,
  stateWordTables,
  verdictStateWords,
} from './state-words.ts';
import { runIssueStates, runStates } from './states.ts';

/** A name for code left in text for people: two lowercase words joined by `_`. */
const snakeCase = /\b[a-z]+_[a-z_]+\b/;

/** The dashboard as a person reads it: entities decoded; the hidden marker, Mermaid source and inline code left out. */
const readable = (md: string): string =>
  md
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/```mermaid[\s\S]*?```/g, '')
    .replace(/`[^`]*`/g, '')
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)));

const verdicts: IntegrationReviewVerdict[] = ['clean', 'minor', 'blocking', 'unclear', 'no_review'];
const outcomes = ['solved', 'unsolved', 'environment_failure', 'stalled', 'cancelled'] as const;

describe('state words', () => {
  it('every state of every kind reads as words, with no snake_case left', () => {
    const all = [
      ...runStates.map(runStateWords),
      ...runIssueStates.map(issueStateWords),
      ...attentionStates.map(attentionStateWords),
      ...outcomes.map(outcomeStateWords),
      ...verdicts.map(verdictStateWords),
      ...[...notifyEvents, 'test'].map(noticeEventWords),
    ];
    for (const words of all) expect(words).not.toMatch(snakeCase);
    // Each table names every state of its kind (a new state is a compile error until it has words).
    expect(Object.keys(stateWordTables.run).sort()).toEqual([...runStates].sort());
    expect(Object.keys(stateWordTables.issue).sort()).toEqual([...runIssueStates].sort());
    expect(Object.keys(stateWordTables.attention).sort()).toEqual([...attentionStates].sort());
    expect(runStateWords('review_unclear')).toBe('waiting on an unclear integration review');
    expect(issueStateWords('pr_open')).toBe('PR open');
    expect(outcomeStateWords('environment_failure')).toBe('an environment failure');
    // A name no table knows (stored data from a newer version) is still words.
    expect(runStateWords('some_new_state')).toBe('some new state');
  });

  it("the status page's badges and a review leg's verdict read as words too", () => {
    for (const name of [...runStates, ...runIssueStates, ...attentionStates]) {
      const badge = String(stateBadge(name));
      // The class keeps the name for the style sheet; the text a person reads has none.
      expect(badge).toContain(`state-${name}`);
      expect(badge.replace(/<[^>]*>/g, '')).not.toMatch(snakeCase);
    }
    expect(String(stateBadge('pr_open'))).toContain('>PR open<');
    expect(String(stateBadge('needs_person'))).toContain('>needs a person<');
    expect(verdictStateWords('nothing_to_review')).toBe('nothing to review');
  });

  it('a dashboard in every run state, with an issue in every state, says no raw state name', () => {
    const issues: DashboardIssue[] = runIssueStates.map((state, i) => ({
      number: i + 1,
      title: `Issue ${i + 1}`,
      state,
      attempts: 1,
      blockedBy: [],
      ...(state === 'held' ? { needsPerson: true as const } : {}),
    }));
    for (const runState of runStates) {
      const md = renderDashboard({
        runId: 'r1',
        milestone: 'M1',
        runState,
        wave: 1,
        issues,
        awaitingApproval: [],
        blockers: [],
        notifyFailures: [{ target: 'chat', error: 'needs a person: HTTP 503' }],
      });
      expect(readable(md), runState).not.toMatch(snakeCase);
    }
  });

  it('the dashboard view words the state a run waits in and every integration review verdict', () => {
    const snap = {
      kind: 'blitz',
      issues: [],
      external: [],
      progress: [],
      options: { maxSessions: 2, dryRun: false },
      build: { status: 'none', covers: [], failures: 0 },
      smoke: 'none',
    } as unknown as RunSnapshot;
    for (const state of runStates)
      for (const verdict of verdicts) {
        const run = {
          id: 'r1',
          repo: 'acme/app',
          milestoneTitle: 'M1',
          state,
          integrationBranch: 'blitz/m1',
          progress: {
            reason: 'why',
            budget: { status: 'ok', park: true, recommendedMaxSessions: 0, preferMedium: false },
          },
        } as RunRecord;
        const review = { mergedSince: 0, last: { verdict, at: '2026-01-01T00:00:00Z', filed: 0 } };
        const v = dashboardView({
          run,
          snap,
          attempts: [],
          actions: [],
          closed: [],
          reviewAvailable: true,
          lapsedApprovals: new Set(),
          integrationReview: review,
        });
        expect(readable(renderDashboard(v)), `${state} ${verdict}`).not.toMatch(snakeCase);
        expect(integrationReviewLine(review) ?? '').not.toMatch(snakeCase);
        expect(reviewUnclear(review) ?? '').not.toMatch(snakeCase);
        expect(attentionOf(run)?.reason ?? '').not.toMatch(snakeCase);
      }
  });
});
