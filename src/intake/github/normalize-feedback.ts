// GitHub's PR feedback webhooks → ForgeEvents: check_suite, check_run and status say a commit's checks
// changed; pull_request_review and pull_request_review_comment say someone reviewed a PR. Only where
// and which PR are kept: the orchestrator reads checks and reviews from the API, never from here.
// The bot's own `blitz` check run is ignored, so updating it cannot loop back into a reconcile.
import { z } from 'zod';
import type { Normalized } from '../events.ts';
import { accepted, ignored, parsePayload, toActor } from '../payload.ts';
import { githubRepositorySchema, githubUserSchema } from './schema.ts';

const common = {
  repository: githubRepositorySchema,
  sender: githubUserSchema,
  installation: z.object({ id: z.number().int().positive() }).nullish(),
};
const prNumbers = z.array(z.object({ number: z.number().int().positive() })).nullish();

const checkRunSchema = z.object({
  action: z.string(),
  check_run: z.object({
    name: z.string(),
    head_sha: z.string().min(1),
    app: z.object({ slug: z.string().optional() }).nullish(),
    pull_requests: prNumbers,
  }),
  ...common,
});
const checkSuiteSchema = z.object({
  action: z.string(),
  check_suite: z.object({ head_sha: z.string().min(1), pull_requests: prNumbers }),
  ...common,
});
const statusSchema = z.object({ sha: z.string().min(1), context: z.string(), ...common });
const reviewSchema = z.object({
  action: z.string(),
  pull_request: z.object({ number: z.number().int().positive() }),
  ...common,
});

export const githubFeedbackEvents = [
  'check_suite',
  'check_run',
  'status',
  'pull_request_review',
  'pull_request_review_comment',
] as const;

const commonSchema = z.object(common);
const baseOf = (p: z.infer<typeof commonSchema>) => ({
  forge: 'github' as const,
  repo: { owner: p.repository.owner.login, name: p.repository.name },
  sender: toActor(p.sender),
  ...(p.installation ? { installationId: p.installation.id } : {}),
});

const reviewChanges: Record<string, 'submitted' | 'edited' | 'dismissed' | 'comment'> = {
  submitted: 'submitted',
  edited: 'edited',
  dismissed: 'dismissed',
};

export const normalizeGithubFeedback = (event: string, payload: unknown): Normalized => {
  switch (event) {
    case 'check_run': {
      const p = parsePayload(checkRunSchema, payload, event);
      const run = p.check_run;
      if (run.name === 'blitz' && run.app?.slug !== 'github-actions')
        return ignored('check_run of the bot’s own progress check');
      if (p.action === 'requested_action' || p.action === 'rerequested')
        return ignored(`check_run.${p.action} does not change a result`);
      return accepted([
        {
          kind: 'checks-changed',
          ...baseOf(p),
          headSha: run.head_sha,
          pullNumbers: (run.pull_requests ?? []).map((r) => r.number),
        },
      ]);
    }
    case 'check_suite': {
      const p = parsePayload(checkSuiteSchema, payload, event);
      if (p.action !== 'completed') return ignored(`check_suite.${p.action} carries no result`);
      return accepted([
        {
          kind: 'checks-changed',
          ...baseOf(p),
          headSha: p.check_suite.head_sha,
          pullNumbers: (p.check_suite.pull_requests ?? []).map((r) => r.number),
        },
      ]);
    }
    case 'status': {
      const p = parsePayload(statusSchema, payload, event);
      if (p.context === 'blitz') return ignored('status of the bot’s own progress context');
      return accepted([{ kind: 'checks-changed', ...baseOf(p), headSha: p.sha, pullNumbers: [] }]);
    }
    case 'pull_request_review': {
      const p = parsePayload(reviewSchema, payload, event);
      const change = reviewChanges[p.action];
      if (!change) return ignored(`pull_request_review.${p.action} is not followed`);
      return accepted([{ kind: 'review-changed', ...baseOf(p), number: p.pull_request.number, change }]);
    }
    case 'pull_request_review_comment': {
      const p = parsePayload(reviewSchema, payload, event);
      if (p.action !== 'created' && p.action !== 'edited')
        return ignored(`pull_request_review_comment.${p.action} is not followed`);
      return accepted([
        { kind: 'review-changed', ...baseOf(p), number: p.pull_request.number, change: 'comment' },
      ]);
    }
    default:
      return ignored(`${event} is not a feedback event`);
  }
};
