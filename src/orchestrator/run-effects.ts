// The slower effects of a run: build and smoke checks through the runner's build gate (in the
// background, their result recorded as a row and a pass requested), bounces with a revert,
// ship (deploy or local preview), notifications.

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { isAppError } from '../errors.ts';
import { formatRepo } from '../forges/types.ts';
import { blameStep } from '../plan/blame.ts';
import { attemptCost, formatCost, priceTableOf, sumCosts } from '../plan/cost.ts';
import { checksClaim, type GateCheck, verifiedBy } from '../plan/gate-checks.ts';
import { attemptKey } from '../plan/issue-progress.ts';
import type { IssueKey } from '../plan/types.ts';
import { onAttemptHost } from '../queue/dispatcher.ts';
import { git } from '../runner/git.ts';
import { type IntegrationGit, integrationWorktree, revertMerge } from '../runner/integration-git.ts';
import { integrationGitOf } from '../runner/worker-clone.ts';
import type { RunCtx } from '../runs/context.ts';
import type { Announcer, Clock, Log, Records, Settings, Workers } from '../runs/ports.ts';
import { sendRunNotice } from '../runs/run-notice.ts';
import {
  firstTime,
  type GateResult,
  recordGateResult,
  setProgress,
  writeOutcome,
} from '../runs/run-writer.ts';
import { describeCiVerdict } from '../ship/ci-verdict.ts';
import { tailOf } from '../ship/deploy.ts';
import { commentOnTrigger, runNoticeOf, runPageUrl } from '../ship/run-notices.ts';
import { defaultHealthTimeoutSeconds, deployLive, type LiveResult, previewLive } from '../ship/ship-live.ts';
import { cleanupClosedIssue } from './issue-cleanup.ts';
import { type Effects, refOf } from './perform.ts';
import { milestonePrCi, milestonePrKey } from './pr-feedback.ts';

export interface EffectHooks {
  /** Runs work after this pass, tracked so idle() waits for it. */
  background(fn: () => Promise<void>): void;
  reconcileSoon(runId: string): void;
  /** Publishes the dashboard now (run end). */
  flushDashboard(runId: string): Promise<void>;
  /** Runs a gate and says what it found; default the runner's build gate at the integration branch. */
  judgeGate?: GateJudge;
}

/** What a gate found: passed, or failed with the output's tail and, for a build, the responsible merge. */
export interface GateFinding {
  status: 'passed' | 'failed';
  tail?: string;
  responsible?: IssueKey;
  /** The integration branch commit it ran on. */
  sha?: string;
}

export type GateJudge = (
  ctx: RunCtx,
  name: 'build' | 'smoke',
  argv: string[],
  covers: IssueKey[],
) => Promise<GateFinding>;

const gateTimeoutSeconds = 1800;

export const createEffects = (
  deps: Records & Workers & Announcer & Clock & Log & Settings,
  hooks: EffectHooks,
): Effects => {
  const runGateAt = async (g: IntegrationGit, name: 'build' | 'smoke', argv: string[], ref?: string) => {
    const cwd = await integrationWorktree(g, ref);
    const res = await deps.runner.execute({
      kind: 'gate',
      name,
      argv,
      cwd,
      timeoutSeconds: gateTimeoutSeconds,
    });
    if (res.kind !== 'gate') throw new Error('the runner answered a gate job with something else');
    const sha = (await git(['rev-parse', 'HEAD'], cwd, g.ctx).catch(() => '')).trim();
    return { ...res.result, ...(sha ? { sha } : {}) };
  };

  /** Builds at the covered merges blameStep (plan/blame.ts) names, until it names the one that broke the build. */
  const responsibleMerge = async (ctx: RunCtx, g: IntegrationGit, argv: string[], covers: IssueKey[]) => {
    const merges = covers.map((key) => {
      const sha = ctx.rows.get(key)?.mergedSha;
      return sha === undefined ? { key } : { key, sha };
    });
    const red = new Map<string, boolean>();
    for (;;) {
      const step = blameStep(merges, red);
      if (step.kind === 'found') return step.responsible;
      const r = await runGateAt(g, 'build', argv, step.sha);
      red.set(step.sha, r.exitCode !== 0 || r.timedOut);
    }
  };

  /**
   * Runs the gate and says what it found (never writes the run): the build at the integration branch's
   * head, the smoke check at the commit the build was green on (a push since is the ship step's to
   * find, which gates again), so a smoke result always speaks of the build's commit.
   */
  const judgeGate: GateJudge = async (ctx, name, argv, covers) => {
    const g = await integrationGitOf(deps, ctx);
    const r = await runGateAt(g, name, argv, name === 'smoke' ? ctx.run.progress.build?.sha : undefined);
    const ok = r.exitCode === 0 && !r.timedOut;
    const at = r.sha ? { sha: r.sha } : {};
    if (ok) return { status: 'passed', ...at };
    const responsible = name === 'build' ? await responsibleMerge(ctx, g, argv, covers) : undefined;
    return { status: 'failed', tail: tailOf(r.tail, 30), ...at, ...(responsible ? { responsible } : {}) };
  };

  const startGate: Effects['startGate'] = async (ctx, name, covers) => {
    const argv = name === 'build' ? ctx.repoConfig.build : ctx.repoConfig.smoke;
    const failures = ctx.run.progress.build?.failures ?? 0;
    const wave = (ctx.run.progress.wave ?? 0) + (name === 'build' ? 1 : 0);
    if (!argv) {
      // Nothing configured: nothing to run, so it does not hold the gate; it is shown as "not
      // configured", never as green (plan/gate-checks.ts).
      if (name === 'build')
        await setProgress(deps, ctx, {
          build: { status: 'passed', covers, failures: 0, notConfigured: true },
          wave,
        });
      else await setProgress(deps, ctx, { smoke: 'passed', smokeGate: { failures: 0, notConfigured: true } });
      return;
    }
    const gate = newRunId();
    if (name === 'build')
      await setProgress(deps, ctx, { build: { status: 'running', gate, covers, failures }, wave });
    else await setProgress(deps, ctx, { smoke: 'running' });
    const runId = ctx.run.id;
    const judge = hooks.judgeGate ?? judgeGate;
    // The gate runs outside the pass: it records what it found (one row) and asks for a pass, which
    // folds the row into the run under the run lock. It never writes the run itself.
    hooks.background(async () => {
      const found = await judge(ctx, name, argv, covers).catch((err: unknown): GateFinding => {
        deps.logger.error({ runId, name, err }, 'gate could not run');
        return { status: 'failed', tail: err instanceof Error ? err.message : String(err) };
      });
      const at = found.sha !== undefined ? { sha: found.sha } : {};
      const result: GateResult =
        name === 'smoke'
          ? { name, status: found.status, ...at, ...(found.tail !== undefined ? { tail: found.tail } : {}) }
          : {
              ...at,
              name,
              gate,
              status: found.status,
              failures: found.status === 'passed' ? 0 : failures + 1,
              ...(found.tail !== undefined ? { tail: found.tail } : {}),
              ...(found.responsible !== undefined ? { responsible: found.responsible } : {}),
            };
      try {
        await recordGateResult(deps.store, runId, result);
      } catch (err) {
        // Not recorded: the gate stays `running` on the dashboard, and the log says why.
        deps.logger.error({ runId, name, err }, 'gate result not recorded');
      }
      hooks.reconcileSoon(runId);
    });
  };

  const bounce: Effects['bounce'] = async (ctx, key, reason) => {
    const ref = refOf(key);
    const row = ctx.rows.get(key);
    const tail = ctx.run.progress.build?.tail;
    // A revert moves the integration branch: its new tip, or none known when it failed.
    let reverted: { tip?: string } | undefined;
    if (row?.mergedSha !== undefined && row.mergedSha !== row.branch) {
      try {
        reverted = { tip: await revertMerge(await integrationGitOf(deps, ctx), row.mergedSha, ref.number) };
      } catch (err) {
        reverted = {};
        deps.logger.error({ runId: ctx.run.id, issue: key, err }, 'revert failed');
      }
    }
    const mine = ctx.attempts.filter((a) => attemptKey(a) === key);
    // The next pass starts afresh off the integration branch: re-merging the old branch after its
    // revert would merge nothing. Its worktree and branches go (local first, while it still tracks origin).
    try {
      await onAttemptHost(
        deps,
        { kind: 'cleanup', repo: ctx.repo, mergedInto: ctx.run.integrationBranch, attemptIds: [] },
        mine,
      );
      const branch = mine.at(-1)?.branch;
      if (branch) await ctx.forge.deleteBranch(ctx.repo, branch);
    } catch (err) {
      deps.logger.warn({ runId: ctx.run.id, issue: key, err }, 'bounced branch not cleaned up');
    }
    const feedback = [`This issue was bounced: ${reason}.`, tail ? `Build output:\n${tail}` : '']
      .filter(Boolean)
      .join('\n');
    const at = { repo: formatRepo(ref.repo), number: ref.number };
    const after = mine.at(-1)?.id;
    await writeOutcome(deps.store, ctx.run.id, at, row, {
      kind: 'bounced',
      feedback,
      ...(after !== undefined ? { after } : {}),
    });
    // The failure is dealt with: the merges still on the branch get a fresh build; the count of red builds stays.
    await setProgress(deps, ctx, ({ build }) => {
      const dealt =
        build?.status === 'failed' && build.responsible === key
          ? { build: { status: 'none' as const, covers: [], failures: build.failures } }
          : undefined;
      return reverted ? { ...dealt, integrationTip: reverted.tip } : dealt;
    });
    await ctx.forge.createComment(
      ref,
      `blitz: bounced back for another pass: ${reason}. ${reverted ? `The merge was reverted on \`${ctx.run.integrationBranch}\`, and the` : 'The'} next worker starts afresh from \`${ctx.run.integrationBranch}\` as it is now, with the failure in its prompt.`,
    );
  };

  const ship: Effects['ship'] = async (ctx, path, reason) => {
    const cfg = ctx.repoConfig.ship;
    await setProgress(deps, ctx, { ship: { status: 'running', path, reasons: [reason] } });
    try {
      const head = ctx.run.integrationBranch;
      // Never shipped before in this run (no state of its PR kept): opened at once, which answers with
      // the open PR from that head if there is one; after, looked for first (an open of an existing PR
      // costs a refused create and a list).
      const shippedBefore = ctx.run.progress.prFeedback?.[milestonePrKey] !== undefined;
      const existing = shippedBefore ? await ctx.forge.findPullRequest(ctx.repo, head) : undefined;
      const pr =
        existing ??
        (await ctx.forge.openPullRequest(ctx.repo, {
          head,
          base: ctx.defaultBranch,
          title: `blitz: ${ctx.run.milestoneTitle}`,
          body: `The integrated work of milestone ${ctx.run.milestoneTitle}: every workable issue closed; ${checksClaim(gateRecordOf(ctx), true)}.\n\nShip decision: ${path} (${reason}).`,
        }));
      // Ships only the commit the gate was green on: a head that moved since is recorded, nothing
      // ships, and the planner gates again (plan/readiness.ts, `regate`).
      const gated = ctx.run.progress.build?.sha;
      const gates = gateRecordOf(ctx);
      if (gated !== undefined && pr.head.sha !== gated) {
        await setProgress(deps, ctx, { ship: undefined, integrationHead: pr.head.sha });
        return;
      }
      // The milestone PR carries the readiness result as the bot's `blitz` check, and the deploy path
      // merges it only when its own CI is green (issue 21): pending asks again on the next pass.
      const ci = await milestonePrCi(
        deps,
        {
          forge: ctx.forge,
          repo: ctx.repo,
          runId: ctx.run.id,
          state: ctx.run.progress.prFeedback?.[milestonePrKey],
        },
        pr.head.sha,
        ctx.repoConfig.ci,
        {
          // Green only when a check ran green: with nothing configured the check is neutral, and says so.
          state: verifiedBy(gates.build, gates.smoke) ? 'success' : 'neutral',
          title: `every issue closed; ${checksClaim(gates)}`,
          summary: `- ${checksClaim(gates, true)}\n- Ship: ${path} (${reason})`,
          ...(deps.config.publicUrl ? { detailsUrl: runPageUrl(deps.config.publicUrl, ctx.run.id)! } : {}),
        },
      );
      ctx.run = (await deps.store.getRun(ctx.run.id)) ?? ctx.run;
      if (path === 'deploy' && cfg.deploy && !pr.merged) {
        if (ci.kind === 'pending') {
          await setProgress(deps, ctx, { ship: undefined });
          return;
        }
        if (ci.kind === 'red' || ci.kind === 'timed_out')
          throw new Error(`the milestone PR's ${describeCiVerdict(ci)}`);
      }
      // Only an address that answered is named live: the milestone PR never stands in for one.
      const timeoutMs = (cfg.healthTimeoutSeconds ?? defaultHealthTimeoutSeconds) * 1000;
      let live: LiveResult | undefined;
      if (path === 'deploy' && cfg.deploy) {
        if (!pr.merged)
          await ctx.forge.mergePullRequest(pr.ref, { method: 'merge', expectedHeadSha: pr.head.sha });
        const cwd = await integrationWorktree(await integrationGitOf(deps, ctx));
        live = await deployLive({
          deploy: {
            argv: cfg.deploy,
            workspaceRoot: deps.config.runner.workspace,
            cwd,
            env: deps.baseEnv,
            timeoutMs: gateTimeoutSeconds * 1000,
          },
          ...(cfg.healthUrl ? { healthUrl: cfg.healthUrl } : {}),
          ...(cfg.deployUrl ? { deployUrl: cfg.deployUrl } : {}),
          timeoutMs,
        });
      } else if (cfg.preview) {
        const worktree = await integrationWorktree(await integrationGitOf(deps, ctx));
        // The repository's preview is its code: it runs as its worker, in the workers' sandbox, on the
        // host's network (it serves the LAN) and past a restart of the bot.
        const jailed = await deps.runner.asWorker?.(cfg.preview, worktree, {
          hostNetwork: true,
          outlivesParent: true,
        });
        live = await previewLive({
          preview: {
            argv: jailed?.argv ?? cfg.preview,
            port: cfg.previewPort ?? 5173,
            workspaceRoot: deps.config.runner.workspace,
            worktree,
            logFile: join(deps.config.runner.workspace, '.previews', `${ctx.run.slug}.log`),
            env: jailed?.env ?? deps.baseEnv,
            ...(jailed?.uid !== undefined ? { uid: jailed.uid, gid: jailed.gid! } : {}),
            readyTimeoutMs: timeoutMs,
          },
        });
      }
      if (live && !live.ok) throw new Error(live.error);
      const answered = live?.ok ? live : undefined;
      await setProgress(deps, ctx, {
        ship: {
          status: 'passed',
          path,
          reasons: [reason],
          pr: pr.htmlUrl,
          ...(answered?.url ? { url: answered.url } : {}),
          ...(answered?.unchecked ? { unchecked: answered.unchecked } : {}),
        },
      });
    } catch (err) {
      // The forge's rate limit is a wait, not a failed ship: the pass fails as any refused call does, and
      // the ship is planned again once the run's pace no longer holds it (`forgeSpent`).
      if (isAppError(err) && err.code === 'rate_limited') {
        await setProgress(deps, ctx, { ship: undefined });
        throw err;
      }
      deps.logger.error({ runId: ctx.run.id, err }, 'ship failed');
      await setProgress(deps, ctx, {
        ship: { status: 'failed', path, reasons: [reason, String((err as Error).message)] },
      });
    }
  };

  const notify: Effects['notify'] = async (ctx, level, title, message) => {
    if (level === 'info' || !(await firstTime(deps, ctx, `notify:${level}:${title}:${message}`))) return;
    const shipped = ctx.snap.progress.filter((p) => p.state === 'closed' || p.state === 'merged').length;
    const ship = ctx.run.progress.ship;
    // A ship that could not be proven live says why (the deploy's or the preview's failure).
    const failure = level === 'blocked' && ship?.status === 'failed' ? ship.reasons?.[1] : undefined;
    // A finished run says what it cost, in money, as its dashboard does (attempts priced by `prices:`).
    const spent =
      level === 'ready' && ctx.attempts.length > 0
        ? `; cost ${formatCost(sumCosts(ctx.attempts.map((a) => attemptCost(priceTableOf(deps.config.prices), a))))}`
        : '';
    const sentence = failure ? `${message}: ${failure}` : `${message}${spent}`;
    const event = level === 'ready' ? 'shipped' : level === 'waiting' ? 'needs_person' : 'blocked';
    const notice = runNoticeOf(ctx.run, event, sentence, {
      issuesShipped: shipped,
      // A fleet has no ship step: nothing to name but the count.
      ...(level === 'ready' && ship ? { path: ship.path, ...(ship.url ? { url: ship.url } : {}) } : {}),
      ...(deps.config.publicUrl ? { publicUrl: deps.config.publicUrl } : {}),
    });
    // A blocked run goes on with `/blitz resume` once the cause is fixed (a red gate is run afresh).
    await sendRunNotice(deps, level === 'blocked' ? { ...notice, command: '/blitz resume' } : notice);
    ctx.run = (await deps.store.getRun(ctx.run.id)) ?? ctx.run;
    const live = level === 'ready' ? ctx.run.progress.ship?.url : undefined;
    const next =
      level === 'blocked' ? 'Fix the cause, then `/blitz resume`.' : live ? `Live at: ${live}` : undefined;
    await commentOnTrigger(deps, ctx.forge, ctx.run, { title, sentence, ...(next ? { next } : {}) });
  };

  // Never fails (issue-cleanup.ts logs what it left); a leftover is swept at the next start.
  const cleanupClosed: Effects['cleanupClosed'] = (ctx, key) =>
    hooks.background(() => cleanupClosedIssue(deps, ctx, key));

  return { startGate, bounce, ship, notify, cleanupClosed };
};

/** The run's record of its checks (what ran, green or red, on which commit), as plan/gate-checks.ts words it. */
export const gateRecordOf = (
  ctx: Pick<RunCtx, 'run' | 'repoConfig'>,
): { build: GateCheck; smoke: GateCheck } => {
  const p = ctx.run.progress;
  const build = p.build;
  const smokeSha = p.smokeGate?.sha;
  return {
    build: {
      status: build?.status ?? 'none',
      configured: ctx.repoConfig.build !== undefined && build?.notConfigured !== true,
      ...(build?.sha ? { sha: build.sha } : {}),
    },
    smoke: {
      status: p.smoke ?? 'none',
      configured: ctx.repoConfig.smoke !== undefined && p.smokeGate?.notConfigured !== true,
      ...(smokeSha ? { sha: smokeSha } : {}),
    },
  };
};

export const newRunId = (): string => randomUUID().slice(0, 8);
