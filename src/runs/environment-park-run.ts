// The run side of an environment park (seed 003, issue 18): the steps that apply the planner's
// `park`, `unpark` and `probe_park` actions. The decisions, and the view they are made from
// (`parkViewOf`), are plan/park.ts's; nobody's issue is charged.
import { repoRefOf } from '../forges/types.ts';
import type { EntryPark } from '../plan/entry-park.ts';
import { parkSentence, type RunPark } from '../plan/environment-park.ts';
import { maxSeen } from '../plan/park.ts';
import { resumeCommandOf } from '../plan/resume-command.ts';
import { parkPatch, probedParkPatch } from '../plan/run-patches.ts';
import type { Action } from '../plan/snapshot.ts';
import { onAttemptHost } from '../queue/dispatcher.ts';
import { commentOnTrigger, mentionsStarter, runNoticeOf } from '../ship/run-notices.ts';
import type { RunRecord } from '../store/run-store.ts';
import { forgeOfRun } from './context.ts';
import type { Announcer, Clock, Forges, Log, Records, Settings, Workers } from './ports.ts';
import { issuesShippedOf, sendRunNotice } from './run-notice.ts';
import { markPosted, writeRun } from './run-writer.ts';

const writePark = (
  deps: Records,
  runId: string,
  park: RunPark | undefined,
  o: { seen?: string[]; run?: 'pause' | 'resume' } = {},
): Promise<RunRecord> => writeRun(deps.store, runId, (now) => parkPatch(now, park, o));

/**
 * `park`: the run paused on the park; a new park is said once (its key is the park's start): to the notify
 * targets, or, with none, in a comment on the trigger issue that @mentions whoever started the run.
 */
export const parkRun = async (
  deps: Records & Forges & Announcer & Log & Settings,
  run: RunRecord,
  a: { park: RunPark; seen: readonly string[]; notice: boolean },
): Promise<RunRecord> => {
  const seen = a.seen.length > 0 ? { seen: [...(run.progress.environmentSeen ?? []), ...a.seen] } : {};
  const parked = await writePark(deps, run.id, a.park, { ...seen, run: 'pause' });
  deps.logger.info({ runId: run.id, park: a.park }, a.notice ? 'run parked' : 'run still parked');
  if (!a.notice) return parked;
  const { first } = await markPosted(deps.store, run.id, `notice:parked:${a.park.since}`);
  if (!first) return parked;
  const notice = runNoticeOf(parked, 'parked', parkSentence(a.park), {
    command: resumeCommandOf(run.kind),
    issuesShipped: await issuesShippedOf(deps, run.id),
    publicUrl: deps.config.publicUrl,
    ...(a.park.resetAt ? { resetAt: a.park.resetAt } : {}),
  });
  await sendRunNotice(deps, notice);
  if (!mentionsStarter(deps, parked)) return parked;
  try {
    const forge = await forgeOfRun(deps, parked, repoRefOf(parked.repo));
    await commentOnTrigger(deps, forge, parked, {
      title: `${parked.milestoneTitle}: parked`,
      sentence: notice.sentence,
      next: `To go on sooner once the cause is fixed: \`${notice.command}\`.`,
    });
  } catch (err) {
    // Said once: a forge that refuses the comment leaves the park on the dashboard and in the log.
    deps.logger.warn({ runId: run.id, err }, 'park comment not posted');
  }
  return parked;
};

/** `unpark`: the park lifts and the run goes on in the state it was paused from. */
export const unparkRun = async (deps: Records & Log, run: RunRecord, reason: string) => {
  const after = await writePark(deps, run.id, undefined, { run: 'resume' });
  deps.logger.info({ runId: run.id, reason }, 'park lifted');
  return after;
};

/**
 * `probe_park`: the sessions the planner named (the park's interrupted attempts still the latest of their
 * issue) go on where they stopped (the tool is the probe); with none resumed, the park lifts.
 */
export const probeParkedRun = async (
  deps: Records & Workers & Clock & Log,
  run: RunRecord,
  a: { park: RunPark; resume: readonly string[] },
): Promise<RunRecord> => {
  let resumed = 0;
  for (const id of a.resume) {
    const attempt = await deps.ledger.get(id);
    if (!attempt) continue;
    try {
      await onAttemptHost(deps, { kind: 'resume', attemptId: id, reason: 'interrupted' }, [attempt]);
      resumed++;
    } catch (err) {
      // A session that cannot be resumed (it never started) is dispatched afresh once the park lifts.
      deps.logger.warn({ runId: run.id, attemptId: id, err }, 'interrupted attempt not resumed');
    }
  }
  deps.logger.info(
    { runId: run.id, resumed },
    'parked run resumed: probing the endpoint with the interrupted sessions',
  );
  const at = deps.clock.now().toISOString();
  return writeRun(deps.store, run.id, (now) => probedParkPatch(now, a.park, resumed, at));
};

/**
 * `park_entry`, `probe_entry`, `unpark_entry` (provider failover, plan/entry-park.ts): the endpoint's park
 * kept in the run's progress, or dropped. The run's state is not touched: its work goes to other entries.
 */
export const writeEntryPark = async (
  deps: Records & Log,
  run: RunRecord,
  a: { endpoint: string; park?: EntryPark; seen?: readonly string[]; reason?: string },
): Promise<RunRecord> => {
  const after = await writeRun(deps.store, run.id, (now) => {
    const { [a.endpoint]: _old, ...others } = now.progress.entryParks ?? {};
    const entryParks = a.park ? { ...others, [a.endpoint]: a.park } : others;
    const seen =
      a.seen && a.seen.length > 0
        ? { environmentSeen: [...(now.progress.environmentSeen ?? []), ...a.seen].slice(-maxSeen) }
        : {};
    return { progress: { ...now.progress, entryParks, ...seen } };
  });
  const entries = a.park?.entries ?? run.progress.entryParks?.[a.endpoint]?.entries ?? [];
  deps.logger.info(
    { runId: run.id, entries, park: a.park, ...(a.reason ? { reason: a.reason } : {}) },
    !a.park
      ? 'roster entry park lifted'
      : a.park.probingSince
        ? 'roster entry probed'
        : 'roster entry parked',
  );
  return after;
};

/** The park actions of every run kind, applied to its run; false for any other action. */
export const performPark = async (
  deps: Records & Workers & Forges & Announcer & Clock & Log & Settings,
  ctx: { run: RunRecord },
  a: Action,
): Promise<boolean> => {
  switch (a.type) {
    case 'park':
      ctx.run = await parkRun(deps, ctx.run, a);
      return true;
    case 'unpark':
      ctx.run = await unparkRun(deps, ctx.run, a.reason);
      return true;
    case 'probe_park':
      ctx.run = await probeParkedRun(deps, ctx.run, a);
      return true;
    case 'park_entry':
    case 'probe_entry':
      ctx.run = await writeEntryPark(deps, ctx.run, a);
      return true;
    case 'unpark_entry':
      ctx.run = await writeEntryPark(deps, ctx.run, { endpoint: a.endpoint, reason: a.reason });
      return true;
    default:
      return false;
  }
};
