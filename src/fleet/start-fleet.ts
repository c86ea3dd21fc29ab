// `/ticket-fleet <refs…> [label:x]`: triage, then a fleet run on the issue the command was typed in
// (its scoreboard lives there), handed to reconcile. Nothing starts when nothing survives triage,
// and every skipped ticket is named with its reason in the reply.
import type { Command } from '../commands/schema.ts';
import { renderScoreboard } from '../dashboard/scoreboard.ts';
import { formatRepo, hasPermission, repoRefOf } from '../forges/types.ts';
import {
  createRunOf,
  failedStart,
  type IntentOutcome,
  repoConfigOrAnswer,
} from '../orchestrator/start-run.ts';
import { type FleetOptions, fleetOptionsOf } from '../plan/fleet-progress.ts';
import { issueKey } from '../plan/types.ts';
import type { Forges, Log, Records, Settings } from '../runs/ports.ts';
import type { Intent } from '../store/types.ts';
import type { FleetHooks } from './fleet-context.ts';
import { repoFactsCache } from './load-fleet.ts';
import { triageTickets } from './triage-tickets.ts';

const usage =
  'Name the tickets: `/ticket-fleet #9 #12 owner/repo#3`, or `/ticket-fleet label:ready` for every open issue with that label.';

const hostOf = (url: string): string | undefined => {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};

export const startFleet = async (
  deps: Records & Forges & Log & Settings,
  hooks: FleetHooks,
  intent: Intent,
  cmd: Extract<Command, { name: 'ticket-fleet' }>,
): Promise<IntentOutcome> => {
  const home = repoRefOf(intent.repo);
  const facts = repoFactsCache(deps, { forge: intent.forge });
  const forge = (await facts(intent.repo)).forge;
  if (intent.issueNumber === undefined) return 'refused';
  const where = { repo: home, number: intent.issueNumber };
  if (cmd.refs.length === 0 && cmd.labels.length === 0) {
    await forge.createComment(where, `Nothing was started. ${usage}`);
    return 'refused';
  }
  const live = (await deps.store.listLiveRuns()).filter(
    (r) => r.kind === 'fleet' && r.forge === intent.forge,
  );
  const existing = live.find((r) => r.repo === intent.repo && r.triggerIssue === intent.issueNumber);
  if (existing) {
    await forge.createComment(
      where,
      'A ticket fleet is already running on this issue: see its scoreboard. Nothing new was started.',
    );
    return 'answered';
  }
  const inOtherFleet = new Map<string, string>();
  for (const r of live)
    for (const t of fleetOptionsOf(r).tickets)
      inOtherFleet.set(`${t.repo}#${t.number}`.toLowerCase(), `${r.repo}#${r.triggerIssue ?? '?'}`);
  const host = hostOf((await forge.cloneCredentials(home).catch(() => undefined))?.url ?? '');
  const triage = await triageTickets({
    home,
    refs: cmd.refs,
    labels: cmd.labels,
    getIssue: async (repo, number) => (await facts(formatRepo(repo))).forge.getIssue({ repo, number }),
    // The sender must be able to write where a ticket lives: the fleet opens a PR there for them.
    canWrite: async (repo) =>
      hasPermission(
        await (await facts(formatRepo(repo))).forge
          .getPermission(repo, intent.sender)
          .catch(() => 'none' as const),
        'write',
      ),
    listLabelled: (repo, label) => forge.listIssuesWithLabel(repo, label),
    inOtherFleet,
    ...(host ? { host } : {}),
  });
  const skippedText = triage.skipped.map((s) => `- ${s.ticket}: skipped, ${s.reason}`);
  if (triage.run.length === 0) {
    await forge.createComment(
      where,
      ['Nothing was started: no ticket survived triage.', '', ...skippedText].join('\n'),
    );
    return 'answered';
  }
  const cfg = await repoConfigOrAnswer(forge, home, (body) =>
    forge.createComment(where, body).then(() => undefined),
  );
  if (!cfg) return 'refused';
  const options: FleetOptions = {
    sender: intent.sender,
    // The wave size: the repo's maxSessions, else the operator's (seed 004: waves of 6–8).
    maxSessions: cfg.config.maxSessions ?? deps.config.runner.maxSessions,
    dryRun: false,
    tickets: triage.run.map(({ repo, number }) => ({ repo, number })),
  };
  // A ticket the sender named is approved by them at the text triage read (the same store as blitz).
  const approvals = Object.fromEntries(
    triage.run.flatMap((t) =>
      t.approvedHash ? [[issueKey(t.repo, t.number), { by: intent.sender, hash: t.approvedHash }]] : [],
    ),
  );
  const created = await createRunOf(deps, intent, {
    kind: 'fleet',
    // One live fleet per trigger issue: the store's unique index holds it (milestones are positive).
    milestoneNumber: -intent.issueNumber,
    milestoneTitle: `ticket fleet on #${intent.issueNumber}`,
    slug: 'fleet',
    options,
    integrationBranch: '',
    // Created with its triage and approvals: a pass that comes first never sees a fleet without them.
    progress: { fleet: { tickets: {}, skipped: triage.skipped, dispatched: [] }, approvals },
  });
  if (!created.created) {
    await forge.createComment(where, 'A ticket fleet is already running on this issue: see its scoreboard.');
    return 'answered';
  }
  const run = created.run;
  // The command is taken now: whatever fails below, a later tick never turns it into a second run.
  await deps.store.claimIntent(intent.id, 'started');
  const names = triage.run.map((t) => (t.repo === intent.repo ? `#${t.number}` : `${t.repo}#${t.number}`));
  try {
    await forge.createComment(
      where,
      [
        `Ticket fleet started with ${triage.run.length} ticket(s): ${names.join(', ')}. ${names[0]} runs alone first (the pilot), then waves of up to ${options.maxSessions}.`,
        'Each ticket gets its own branch `ticket/<n>-headless` and PR, and a review leg; nothing merges until a person says `/merge` on the PR.',
        ...(skippedText.length ? ['', ...skippedText] : []),
      ].join('\n'),
    );
    hooks.scoreboard(
      run.id,
      renderScoreboard({ runState: 'planning', waves: [], queued: [], skipped: triage.skipped, relays: [] }),
    );
    await hooks.flushScoreboard(run.id);
  } catch (err) {
    const answer = (body: string) => forge.createComment(where, body).then(() => undefined);
    await failedStart(deps, hooks, run, err, answer, `/ticket-fleet ${names.join(' ')}`);
    return 'refused';
  }
  deps.logger.info({ runId: run.id, repo: run.repo, tickets: triage.run.length }, 'fleet started');
  hooks.reconcileSoon(run.id);
  return 'started';
};
