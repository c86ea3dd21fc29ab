// What a blitz or plan run reads of its repository first in every load, one way for both: the forge
// connection and the repo config. A config that does not parse, and a forge that refuses the bot
// (forges/hard-blocker.ts), are both a hard blocker: the pass reads nothing else and the planner blocks
// the run (hard-blocker-run.ts: BLOCKED with the reason, one notice with `/blitz resume`); the config's
// errors go once on the trigger issue. A read refused for an App permission is the typed block instead
// (plan/permission-block.ts: the permission and the page where an admin accepts it). The first pass
// that reads through, with a config that parses, lifts the blocker.
import { operatorTargetNames, unknownNotifyPicks } from '../config/notify-picks.ts';
import { type ConfigError, formatConfigErrors } from '../config/repo-config.ts';
import { missingPermissionOf } from '../forges/app-permission.ts';
import { forgeRefusalOf } from '../forges/hard-blocker.ts';
import { missingPermissionViewOf } from '../forges/permission-view.ts';
import { type Forge, type RepoRef, repoRefOf } from '../forges/types.ts';
import type { BlockCause } from '../plan/block-cause.ts';
import { type RunOptionsStored, runOptionsOf } from '../plan/run-options.ts';
import type { RunSnapshot } from '../plan/snapshot.ts';
import type { RunRecord } from '../store/run-store.ts';
import { forgeOfRun } from './context.ts';
import type { Forges, Log, Records, Settings } from './ports.ts';
import { loadRepoConfig } from './repo-settings.ts';
import { reportOnce } from './run-notice.ts';
import { commonSnapshot } from './run-pace.ts';
import { writeProgress } from './run-writer.ts';

export type ConfigRead = Awaited<ReturnType<typeof loadRepoConfig>>;
type ParsedConfig = Extract<ConfigRead['result'], { ok: true }>['config'];

/** The run's repository as one pass reads it: the forge, the config that parsed, and the run's options. */
export interface RunRepo {
  options: RunOptionsStored;
  forge: Forge;
  repo: RepoRef;
  repoConfig: ParsedConfig;
  defaultBranch: string;
}

/** A pass that read only the run and its hard blocker: the planner blocks the run on it and does nothing else. */
export interface HeldPass {
  run: RunRecord;
  snap: RunSnapshot;
  held: true;
}

/** A hard blocker kept on the run from an earlier pass, for the planner to lift (`unblock`). */
export const keptBlockerOf = (b: NonNullable<RunRecord['progress']['hardBlocker']>) => ({
  reason: b.reason,
  ...(b.cause !== undefined ? { cause: b.cause } : {}),
  ...(b.issue !== undefined ? { issue: b.issue } : {}),
});

/**
 * The hard blocker of a repo config that does not parse: its errors (the first goes in the reason the
 * status page, the notice and the blocker issue show), and the trigger issue all of them are posted on.
 */
export const configBlocker = (
  path: string,
  errors: readonly ConfigError[],
  triggerIssue?: number,
): BlockCause => ({
  kind: 'config_invalid',
  path,
  errors: errors.map((e) => ({ path: e.path, message: e.message })),
  ...(triggerIssue !== undefined ? { triggerIssue } : {}),
});

/** The snapshot of a held pass: nothing but the run and the hard blocker was read. */
export const heldSnapshot = (
  deps: Settings,
  run: RunRecord,
  options: RunOptionsStored,
  kind: RunSnapshot['kind'],
  cause: BlockCause,
): RunSnapshot => ({
  ...commonSnapshot(deps, kind, options, {
    milestone: { title: run.milestoneTitle, description: '' },
    issues: [],
    budget: undefined,
    machine: { limit: 0, contended: false },
    pace: undefined,
  }),
  hardBlocker: cause,
});

/** Keeps the repository's pick of notify targets on the run, where every notice of the run reads it. */
const keepNotifyPick = async (
  deps: Records,
  run: RunRecord,
  picks: readonly string[] | undefined,
): Promise<void> => {
  if (JSON.stringify(run.progress.notifyTo) === JSON.stringify(picks)) return;
  await writeProgress(deps.store, run.id, () => ({ notifyTo: picks ? [...picks] : undefined }));
};

/**
 * Reads the run's options (parsed here, once per pass), forge and repo config (`cache.cfg`, when given,
 * is read once per reconcile call), and what else the load reads (`rest`); a broken config or a
 * refusing forge gives the held pass instead.
 * `wrap` wraps the forge connection the pass uses (the blitz keeps the PRs it opens).
 */
export const loadRunRepo = async <Ctx>(
  deps: Records & Forges & Log & Settings,
  run: RunRecord,
  kind: RunSnapshot['kind'],
  rest: (r: RunRepo) => Promise<Ctx>,
  opts: { cache?: { cfg?: ConfigRead }; wrap?: (forge: Forge) => Forge } = {},
): Promise<Ctx | HeldPass> => {
  const options = runOptionsOf(run);
  const held = (cause: BlockCause): HeldPass => ({
    run,
    snap: heldSnapshot(deps, run, options, kind, cause),
    held: true,
  });
  const repo = repoRefOf(run.repo);
  let opened: Forge | undefined;
  try {
    opened = await forgeOfRun(deps, run, repo);
    const forge = opts.wrap ? opts.wrap(opened) : opened;
    const cache = opts.cache ?? {};
    cache.cfg ??= await loadRepoConfig(forge, repo);
    const cfg = cache.cfg;
    // A notify target the repository names that the operator has none of is an error in the file too.
    const picks = cfg.result.ok ? cfg.result.config.notify : undefined;
    const errors = !cfg.result.ok
      ? cfg.result.errors
      : picks === undefined
        ? []
        : unknownNotifyPicks(picks, operatorTargetNames(deps.config.notify));
    if (!cfg.result.ok || errors.length > 0) {
      // Said once per set of errors: a blocked run is still looked at every tick.
      const text = formatConfigErrors(errors, cfg.path);
      await reportOnce(deps, { run, forge, repo }, `config:${JSON.stringify(errors)}`, text).catch(
        (err: unknown) => deps.logger.warn({ runId: run.id, err }, 'config errors not posted'),
      );
      return held(configBlocker(cfg.path, errors, run.triggerIssue));
    }
    await keepNotifyPick(deps, run, picks);
    return await rest({
      forge,
      repo,
      repoConfig: cfg.result.config,
      defaultBranch: cfg.defaultBranch,
      options,
    });
  } catch (err) {
    // A read the installation lacks a permission for (the milestone's issues without `issues:read`)
    // names it and the page where an admin accepts it; the first load that reads through lifts it.
    const permission = missingPermissionOf(err);
    if (permission) {
      const { page } = await missingPermissionViewOf(opened ?? {}, repo, permission);
      return held({ kind: 'missing_permission', permission, ...(page ? { page } : {}) });
    }
    const refused = forgeRefusalOf(err);
    if (refused === undefined) throw err;
    return held({ kind: 'forge_refused', ...refused });
  }
};
