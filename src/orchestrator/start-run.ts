// Intents become runs: `/blitz [M]` (and a milestone signal, which stands for one) resolves the
// milestone, refuses a second live run on it with a pointer to the live one, reads the repo config,
// creates `blitz/<slug>` off the default branch, posts the dashboard and hands over to reconcile.
// `/blitz status|pause|resume|cancel|help` act on the live run of the repository. The steps every run
// kind starts with (the place, the repo config, the milestone, the new run) are here, once.
import { cleanLine, inlineCode } from '../commands/quote.ts';
import { type Command, commandSchema } from '../commands/schema.ts';
import { formatConfigErrors } from '../config/repo-config.ts';
import { AppError, isAppError } from '../errors.ts';
import { type Forge, type RepoRef, repoRefOf } from '../forges/types.ts';
import { resumeCommandOf } from '../plan/resume-command.ts';
import { type Override, type Tool, tools } from '../plan/routing.ts';
import { type RunControlStep, runControlOf } from '../plan/run-control.ts';
import type { RunOptionsStored } from '../plan/run-options.ts';
import { startFailedPatch } from '../plan/run-patches.ts';
import { runStateWords } from '../plan/state-words.ts';
import { firstRunState } from '../plan/states.ts';
import { slugify } from '../runner/branch-names.ts';
import type { Announcer, Forges, Log, Records, Settings } from '../runs/ports.ts';
import { loadRepoConfig } from '../runs/repo-settings.ts';
import { sendRunNotice } from '../runs/run-notice.ts';
import { setDashboardComment, writeRun } from '../runs/run-writer.ts';
import { runNoticeOf } from '../ship/run-notices.ts';
import type { NewRun, RunRecord } from '../store/run-store.ts';
import type { Intent } from '../store/types.ts';
import { newRunId } from './run-effects.ts';

/** What the run loop lends a command's handler: a change between passes, and a pass soon after. */
export interface CommandHooks {
  reconcileSoon(runId: string): void;
  /** Runs a change to a run between its reconcile passes, never during one. */
  serialized<T>(runId: string, fn: () => Promise<T>): Promise<T>;
}

export interface StartHooks extends CommandHooks {
  /** Creates or edits the dashboard comment now; returns its id. */
  postDashboard(run: RunRecord, forge: Forge): Promise<number | undefined>;
  cancelWorkers(run: RunRecord): Promise<number>;
}

export type IntentOutcome = 'started' | 'answered' | 'refused' | 'not_mine';

const helpText = [
  '**blitz-bot** commands:',
  '- `/blitz [milestone] [--max N] [--tool T] [--model M] [--deploy|--local] [--dry-run]` — drive a milestone to done',
  '- `/blitz status` — where the run on this repository stands',
  '- `/blitz pause` / `/blitz resume` — stop starting workers / start again',
  '- `/blitz cancel` — stop the workers and the run; branches are kept',
  '- `/blitz retry #n` — a failed, stalled or held issue gets a fresh attempt and a new allowance (a skipped one comes back)',
  '- `/blitz skip #n` — leave an issue out of this run (it stays open; its worker is stopped)',
  '- `/blitz unhold #n` — lift a hold (the `hold` label, the 3-failure hold, a stall past its nudges)',
  '- `/blitz review` — run the integration review again on the integration branch as it is now',
  '- `/blitz accept-review` — accept an unclear integration review, so the run goes on to smoke and ship',
].join('\n');

const isTool = (t: string): t is Tool => (tools as readonly string[]).includes(t);

/** `--tool` names a built-in tool; `--model` a model; either overrides routing for this run. */
const overrideOf = (cmd: Extract<Command, { name: 'blitz' }>): { override?: Override } => {
  const tool = cmd.tool !== undefined && isTool(cmd.tool) ? cmd.tool : undefined;
  if (tool === undefined && cmd.model === undefined) return {};
  return { override: { ...(tool ? { tool } : {}), ...(cmd.model ? { model: cmd.model } : {}) } };
};

/** What a person calls the run in an answer: the words name its kind (a plan run is not a blitz). */
const runNoun = (run: RunRecord): string =>
  run.kind === 'fleet'
    ? `ticket fleet${run.triggerIssue !== undefined ? ` on #${run.triggerIssue}` : ''}`
    : `${run.kind === 'plan' ? 'plan-blitz' : 'blitz'} of **${run.milestoneTitle}**`;
const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

const dashboardWhere = (run: RunRecord): string =>
  run.triggerIssue !== undefined ? `the dashboard on #${run.triggerIssue}` : `run ${run.id}`;

/** Where a command was typed: its repository's forge, and a reply on its issue (none without one). */
export const placeOf = async (deps: Forges, intent: Intent) => {
  const repo = repoRefOf(intent.repo);
  const forge = await deps.forges({ forge: intent.forge, repo });
  const where = intent.issueNumber !== undefined ? { repo, number: intent.issueNumber } : undefined;
  const answer = async (body: string): Promise<void> => {
    if (where) await forge.createComment(where, body);
  };
  return { repo, forge, answer };
};

/** The live run a command means: the one the issue it was typed on carries, else the repo's only one. */
export const runOfCommand = async (
  deps: Records,
  intent: Intent,
  kinds: readonly RunRecord['kind'][],
): Promise<{ run: RunRecord | undefined; runs: RunRecord[] }> => {
  const runs = (await deps.store.listLiveRuns()).filter(
    (r) => r.forge === intent.forge && r.repo === intent.repo && kinds.includes(r.kind),
  );
  const run =
    runs.find((r) => r.triggerIssue === intent.issueNumber) ?? (runs.length === 1 ? runs[0] : undefined);
  return { run, runs };
};

/** The repo config of a command's repository, or undefined once its errors were answered. */
export const repoConfigOrAnswer = async (
  forge: Forge,
  repo: RepoRef,
  answer: (body: string) => Promise<void>,
) => {
  const cfg = await loadRepoConfig(forge, repo);
  if (cfg.result.ok) return { config: cfg.result.config, defaultBranch: cfg.defaultBranch };
  await answer(formatConfigErrors(cfg.result.errors, cfg.path));
  return undefined;
};

/** The milestone a command names, or undefined once `word: why not` was answered. */
export const milestoneOrAnswer = async (
  forge: Forge,
  repo: RepoRef,
  name: string | undefined,
  word: string,
  answer: (body: string) => Promise<void>,
) => {
  try {
    return await forge.resolveMilestone(repo, name);
  } catch (err) {
    if (!isAppError(err, 'not_found') && !isAppError(err, 'bad_request')) throw err;
    await answer(`${word}: ${err.message}`);
    return undefined;
  }
};

/** A new run of the command's repository, in `planning`, on the issue the command was typed on. */
export const createRunOf = (
  deps: Records,
  intent: Intent,
  run: Omit<NewRun, 'id' | 'forge' | 'repo' | 'triggerIssue' | 'state'>,
) =>
  deps.store.createRun({
    id: deps.newId?.() ?? newRunId(),
    forge: intent.forge,
    repo: intent.repo,
    ...(intent.issueNumber !== undefined ? { triggerIssue: intent.issueNumber } : {}),
    state: firstRunState,
    ...run,
  });

/** The command that names a milestone again: quoted when its title has a space or a quote. */
export const commandFor = (command: string, title: string): string =>
  /^[^\s"'`]+$/.test(title) ? `${command} ${title}` : `${command} "${title.replace(/"/g, '')}"`;

/** What a new run found of its milestone's integration branch, and what it did with it. */
export type BranchStart = { kind: 'new' } | { kind: 'continued'; ahead: number } | { kind: 'fresh' };

/**
 * The integration branch a new run works on: created off the default branch; one left by an earlier
 * run is continued when it holds commits the default branch has not (unmerged work), else moved to the
 * default branch's head, so the run starts fresh.
 */
export const settleIntegrationBranch = async (
  forge: Forge,
  repo: RepoRef,
  branch: string,
  base: string,
): Promise<BranchStart> => {
  // Created first: the usual case costs no more than before; `conflict` says one is there elsewhere.
  try {
    await forge.createBranch(repo, branch, base);
    return { kind: 'new' };
  } catch (err) {
    if (!isAppError(err, 'conflict')) throw err;
  }
  const ahead = await forge.commitsAhead(repo, base, branch);
  if (ahead === undefined) throw new AppError('conflict', `branch ${branch} came and went while it was read`);
  if (ahead > 0) return { kind: 'continued', ahead };
  await forge.resetBranch(repo, branch, base);
  return { kind: 'fresh' };
};

export const branchStartText = (branch: string, base: string, start: BranchStart): string =>
  start.kind === 'continued'
    ? `Continuing on \`${branch}\` from an earlier run: it holds ${start.ahead} commit(s) that \`${base}\` has not, and this run builds on them.`
    : `Starting fresh: \`${branch}\` from an earlier run held nothing that \`${base}\` has not, so it was moved to the head of \`${base}\`.`;

/**
 * A run whose start failed after it was created (its branch, its dashboard): it ends `cancelled` with
 * the reason, and the person is told what failed and the command that starts it again. The command
 * stays taken, so no later tick starts a second run from it.
 */
export const failedStart = async (
  deps: Records & Log,
  hooks: Pick<CommandHooks, 'serialized'>,
  run: RunRecord,
  err: unknown,
  answer: (body: string) => Promise<void>,
  again: string,
): Promise<void> => {
  const why = err instanceof Error ? err.message : String(err);
  deps.logger.error({ runId: run.id, err }, 'run did not start; it was cancelled');
  try {
    await hooks.serialized(run.id, () => writeRun(deps.store, run.id, (now) => startFailedPatch(now, why)));
    await answer(
      `The ${runNoun(run)} could not start: ${cleanLine(why)}. Nothing is running for it; ${inlineCode(again)} tries again.`,
    );
  } catch (more) {
    deps.logger.error({ runId: run.id, err: more }, 'the failed start could not be recorded or answered');
  }
};

export const createIntentHandler = (
  deps: Records & Forges & Announcer & Log & Settings,
  hooks: StartHooks,
) => {
  const startBlitz = async (
    intent: Intent,
    cmd: Extract<Command, { name: 'blitz' }>,
  ): Promise<IntentOutcome> => {
    const { repo, forge, answer } = await placeOf(deps, intent);
    const cfg = await repoConfigOrAnswer(forge, repo, answer);
    const milestone = cfg && (await milestoneOrAnswer(forge, repo, cmd.milestone, 'blitz', answer));
    if (!cfg || !milestone) return 'refused';
    const existing = await deps.store.liveRun(intent.forge, intent.repo, milestone.number);
    if (existing) {
      await answer(
        `A blitz of **${existing.milestoneTitle}** is already running: see ${dashboardWhere(existing)}. Nothing new was started.`,
      );
      return 'answered';
    }
    const slug = slugify(milestone.title, 30) || `m${milestone.number}`;
    const options: RunOptionsStored = {
      maxSessions: cmd.max ?? cfg.config.maxSessions ?? deps.config.runner.maxSessions,
      dryRun: cmd.dryRun,
      ...overrideOf(cmd),
      ...(cmd.ship ? { shipOverride: cmd.ship } : {}),
      ...(cmd.requireChecks ? { requireChecks: true } : {}),
      shipPolicy: cfg.config.ship.policy,
      sender: intent.sender,
    };
    const created = await createRunOf(deps, intent, {
      kind: 'blitz',
      milestoneNumber: milestone.number,
      milestoneTitle: milestone.title,
      slug,
      options,
      integrationBranch: `blitz/${slug}`,
    });
    if (!created.created) {
      await answer(
        `A blitz of **${created.live.milestoneTitle}** is already running: see ${dashboardWhere(created.live)}.`,
      );
      return 'answered';
    }
    const run = created.run;
    // The command is taken now: whatever fails below, a later tick never turns it into a second run.
    await deps.store.claimIntent(intent.id, 'started');
    try {
      const branch = cmd.dryRun
        ? undefined
        : await settleIntegrationBranch(forge, repo, run.integrationBranch, cfg.defaultBranch);
      const commentId = await hooks.postDashboard(run, forge);
      if (commentId !== undefined) await setDashboardComment(deps.store, run.id, commentId);
      if (branch && branch.kind !== 'new')
        await answer(branchStartText(run.integrationBranch, cfg.defaultBranch, branch));
    } catch (err) {
      await failedStart(deps, hooks, run, err, answer, commandFor('/blitz', milestone.title));
      return 'refused';
    }
    deps.logger.info(
      { runId: run.id, repo: run.repo, milestone: run.milestoneTitle, dryRun: cmd.dryRun },
      'run started',
    );
    hooks.reconcileSoon(run.id);
    if (!cmd.dryRun)
      await sendRunNotice(
        deps,
        runNoticeOf(run, 'started', `${intent.sender} started a blitz of ${milestone.title}`, {
          ...(deps.config.publicUrl ? { publicUrl: deps.config.publicUrl } : {}),
        }),
        // Outside any pass: a failure kept on the run is written under the run lock, like every write.
        (write) => hooks.serialized(run.id, write),
      );
    return 'started';
  };

  const control = async (
    intent: Intent,
    action: Extract<Command, { name: 'blitz-control' }>['action'],
    kinds: readonly RunRecord['kind'][] = ['blitz', 'plan'],
  ): Promise<IntentOutcome> => {
    const { answer } = await placeOf(deps, intent);
    if (action === 'help') {
      await answer(helpText);
      return 'answered';
    }
    // A fleet has its own commands (/merge, /review, /ticket-fleet resume); `/blitz …` steers milestone runs.
    const { run, runs } = await runOfCommand(deps, intent, kinds);
    if (!run) {
      const [one, several] = kinds.includes('fleet')
        ? ['ticket fleet', 'ticket fleets']
        : kinds.includes('blitz')
          ? ['blitz', 'blitzes']
          : ['plan-blitz', 'plan-blitz runs'];
      await answer(
        runs.length === 0
          ? `No ${one} is running on this repository.`
          : `Several ${several} are running here; use the command on the issue that carries the one you mean (${runs.map(dashboardWhere).join(', ')}).`,
      );
      return 'answered';
    }
    if (action === 'status') {
      const issues = await deps.store.listRunIssues(run.id);
      const count = (s: string) => issues.filter((i) => i.state === s).length;
      await answer(
        `${capital(runNoun(run))} is ${runStateWords(run.state)}${run.progress.reason ? ` (${run.progress.reason})` : ''}: ${count('closed')} closed, ${issues.length - count('closed')} in progress; details on ${dashboardWhere(run)}.`,
      );
      return 'answered';
    }
    // What the command does is plan/run-control.ts's, decided from the run as the write reads it.
    const reply = await hooks.serialized(run.id, async () => {
      const stopped = action === 'cancel' ? await hooks.cancelWorkers(run) : 0;
      let step: RunControlStep | undefined;
      let read = run;
      await writeRun(deps.store, run.id, (now) => {
        read = now;
        step = runControlOf(now, action);
        return step.patch;
      });
      const noun = runNoun(run);
      switch (step?.outcome) {
        case 'paused':
          return `Paused the ${noun}: running workers finish, nothing new starts until \`/blitz resume\`.`;
        case 'review_unclear':
          return `The ${noun} is not paused: it waits on an unclear integration review. \`/blitz accept-review\` accepts it, \`/blitz review\` runs it again.`;
        case 'blocked':
          return `The ${noun} is not paused: it is blocked${read.progress.reason ? ` (${read.progress.reason})` : ''}: ${inlineCode(read.progress.continueWith ?? resumeCommandOf(read.kind))} continues it once the cause is fixed, \`/blitz cancel\` ends it.`;
        case 'ended':
          return `The ${noun} has ended (${runStateWords(read.state)}); nothing changed. \`/blitz\` starts a new one.`;
        case 'cancelled':
          return `Cancelled the ${noun}: ${stopped} worker(s) stopped; the branches and \`${run.integrationBranch}\` are kept.`;
        default:
          return `Resumed the ${noun}.`;
      }
    });
    await answer(reply);
    hooks.reconcileSoon(run.id);
    return 'answered';
  };

  /** Handles one stored intent; `not_mine` leaves it queued for another module (fleet, plan). */
  return async (intent: Intent): Promise<IntentOutcome> => {
    const parsed = commandSchema.safeParse(intent.command);
    if (!parsed.success) throw new AppError('bad_request', `Intent ${intent.id} does not hold a command.`);
    const cmd = parsed.data;
    if (cmd.name === 'blitz') return startBlitz(intent, cmd);
    if (cmd.name === 'blitz-control') return control(intent, cmd.action);
    if (cmd.name === 'ticket-fleet-resume') return control(intent, 'resume', ['fleet']);
    if (cmd.name === 'plan-blitz-resume') return control(intent, 'resume', ['plan']);
    return 'not_mine';
  };
};
