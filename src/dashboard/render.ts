// The run's sticky dashboard comment in Markdown (pure): a hidden marker to find it again, a progress
// line, the issue table, what is held or unrunnable, the budget probe, readiness, ship and notify
// failures, and the DAG as a Mermaid flowchart. It renders only what it is given: no secret is read.
import { checksClaim, type GateCheck } from '../plan/gate-checks.ts';
import { maxConflictResumes } from '../plan/merge-conflict.ts';
import { issueStateWords, runStateWords } from '../plan/state-words.ts';
import { inFlightIssueStates, integratingIssueStates } from '../plan/states.ts';
import { compactNumber, markdownText, safeUrl } from './escape.ts';
import { renderFlowchart } from './mermaid.ts';
import type {
  DashboardBlocker,
  DashboardBudget,
  DashboardInput,
  DashboardIssue,
  DashboardIssueState,
} from './types.ts';

export type * from './types.ts';

/** The dashboard line of a slowed run (every run kind's dashboard shows it the same way). */
export const slowedLine = (reason: string): string => `**Slowed down:** ${markdownText(reason, 300)}.`;

/** GitHub refuses comments over 65 536 characters; Gitea's limit is higher. Keep a margin. */
export const maxDashboardChars = 60_000;

// A run id lands inside an HTML comment: nothing that could end it (`--`, `>`) may pass.
const safeRunId = (runId: string): string =>
  runId.replace(/[^A-Za-z0-9_.:-]/g, '_').replace(/-{2,}/g, '-') || '_';

/** The marker bare, as the forge adapters take it (they wrap it in the tag the body carries). */
export const dashboardMarkerText = (runId: string): string => `blitz-dashboard:${safeRunId(runId)}`;

export const dashboardMarker = (runId: string): string => `<!-- ${dashboardMarkerText(runId)} -->`;

// Counted as working: a worker on it, its branch on the way to a merge, or merged and awaiting the build.
const working: ReadonlySet<DashboardIssueState> = new Set([
  ...inFlightIssueStates,
  ...integratingIssueStates,
  'merged',
]);
const extraCounts: DashboardIssueState[] = ['ready', 'held', 'bounced', 'stalled', 'failed'];

const stateIcon: Record<DashboardIssueState, string> = {
  blocked: '⏳',
  ready: '🟦',
  dispatched: '🚀',
  working: '🔨',
  pushed: '📤',
  pr_open: '📬',
  reviewed: '🔍',
  merged: '🔀',
  closed: '✅',
  failed: '❌',
  stalled: '💤',
  bounced: '↩️',
  held: '✋',
};

export const progressLine = (input: Pick<DashboardInput, 'issues' | 'wave'>): string => {
  const count = (pred: (i: DashboardIssue) => boolean) => input.issues.filter(pred).length;
  const parts = [
    `${count((i) => i.state === 'closed')}/${input.issues.length} closed`,
    `${count((i) => working.has(i.state))} working`,
    `${count((i) => i.state === 'blocked')} blocked`,
  ];
  for (const s of extraCounts) {
    const n = count((i) => i.state === s && !i.skipped);
    if (n > 0) parts.push(`${n} ${s}`);
  }
  const skipped = count((i) => i.skipped === true);
  if (skipped > 0) parts.push(`${skipped} skipped`);
  parts.push(`wave ${input.wave}`);
  return parts.join(' · ');
};

const ref = (n: number): string => (Number.isSafeInteger(n) && n > 0 ? `#${n}` : '#?');

const issueRow = (i: DashboardIssue): string => {
  const worker = i.epic
    ? 'epic'
    : [i.rosterEntry && markdownText(i.rosterEntry, 40), i.model && `(${markdownText(i.model, 40)})`]
        .filter(Boolean)
        .join(' ') || '–';
  const url = safeUrl(i.prUrl);
  const pr = i.prNumber === undefined ? '–' : url ? `[${ref(i.prNumber)}](${url})` : ref(i.prNumber);
  const state = i.skipped
    ? '⏭️ skipped'
    : i.needsPerson
      ? `🙋 ${issueStateWords(i.state)}, needs a person`
      : stateIcon[i.state]
        ? `${stateIcon[i.state]} ${issueStateWords(i.state)}`
        : markdownText(issueStateWords(String(i.state)), 40);
  const tokens = `${i.tokens === undefined ? '–' : compactNumber(i.tokens)}${i.cost ? ` · ${markdownText(i.cost, 40)}` : ''}`;
  const waiting = Math.max(0, Math.trunc(i.messagesWaiting ?? 0) || 0);
  const told = waiting > 0 ? ` · ✉️ ${waiting} message${waiting === 1 ? '' : 's'} not delivered yet` : '';
  const tries = Math.max(0, Math.trunc(i.conflictTries ?? 0) || 0);
  const conflicts =
    tries > 0 ? ` · 🔀 merge conflict sent back to its session (try ${tries} of ${maxConflictResumes})` : '';
  return `| ${ref(i.number)} | ${markdownText(i.title)} | ${state}${told}${conflicts} | ${worker} | ${pr} | ${Math.max(0, Math.trunc(i.attempts) || 0)} | ${tokens} |`;
};

const blockerLine = (b: DashboardBlocker): string =>
  b.kind === 'cycle'
    ? `- Cycle ${[...b.issues, b.issues[0] ?? 0].map(ref).join(' → ')}: not run until one blocked-by link is removed.`
    : `- ${ref(b.issue)} is blocked by ${markdownText(b.blocker, 60)}, which cannot be read: left open (fail closed).`;

const budgetLine = (b: DashboardBudget): string => {
  switch (b.status) {
    case 'ok':
      return `Budget probe: up to ${b.recommendedMaxSessions} session${b.recommendedMaxSessions === 1 ? '' : 's'}${b.preferMedium ? ' · prefer medium models' : ''}${b.park ? ' · **parked**: no new workers' : ''}.`;
    case 'absent':
      return 'Budget probe: none configured; usage is unknown, so one worker at a time.';
    case 'failed':
      return `Budget probe failed (${markdownText(b.error, 160)}); one worker at a time until it answers.`;
  }
};

// A commit name is hex from the bot's own git; anything else is left out rather than rendered.
const hexSha = (c: GateCheck): GateCheck => {
  const { sha, ...rest } = c;
  return sha && /^[0-9a-f]{7,64}$/.test(sha) ? { ...rest, sha } : rest;
};

/** "build ✓ at `abc1234`, smoke not configured": what ran, never green for a check with no command. */
const checksLine = (c: NonNullable<DashboardInput['checks']>): string =>
  checksClaim({ build: hexSha(c.build), smoke: hexSha(c.smoke) }, true);

/** The ship as it went: an address only when it answered, the milestone PR by its own name. */
const shipLine = (ship: NonNullable<DashboardInput['ship']>): string => {
  const url = safeUrl(ship.url);
  const pr = safeUrl(ship.pr);
  const prLink = pr ? ` · [the milestone PR](${pr})` : '';
  if (ship.path === 'local')
    return url
      ? `**Shipped: local preview** · [open the preview](${url})${prLink}`
      : `**Shipped: no preview** (no \`ship.preview\` command ran)${prLink}`;
  if (url) return `**Shipped: deployed** · [open it](${url})${prLink}`;
  const unchecked = safeUrl(ship.unchecked);
  return `**Shipped: deployed**${unchecked ? ` to ${unchecked}` : ''}, not checked live (no \`ship.healthUrl\`)${prLink}`;
};

interface RenderParts {
  graph: boolean;
  rows: number;
}

const renderWith = (input: DashboardInput, parts: RenderParts): string => {
  const out: string[] = [dashboardMarker(input.runId)];
  out.push(
    `### blitz: ${markdownText(input.milestone, 80)} — ${markdownText(runStateWords(input.runState), 60)}`,
    '',
  );
  out.push(`**${progressLine(input)}**`);
  if (input.cost) out.push('', `Cost so far: ${markdownText(input.cost, 60)}`);
  if (input.integrationBranch)
    out.push('', `Integration branch: ${markdownText(input.integrationBranch, 100)}`);
  out.push('', '| # | Issue | State | Worker | PR | Attempts | Tokens |', '|---|---|---|---|---|---|---|');
  for (const issue of input.issues.slice(0, parts.rows)) out.push(issueRow(issue));
  if (parts.rows < input.issues.length)
    out.push('', `…and ${input.issues.length - parts.rows} more issues not shown.`);
  if (input.awaitingApproval.length > 0) {
    out.push('', '#### Waiting for approval', '');
    out.push(
      'Opened by someone without write access; a maintainer adds the label `blitz/approved` to let it run.',
      '',
    );
    for (const a of input.awaitingApproval)
      out.push(
        `- ${ref(a.number)} ${markdownText(a.title)}${a.lapsed ? ' (approval lapsed: edited after it was approved; a maintainer re-adds the label)' : ''}`,
      );
  }
  const refused = input.issues.filter((i) => i.refused && i.refused.length > 0);
  if (refused.length > 0) {
    out.push('', '#### Commands the agent was refused', '');
    out.push(
      "Add these to the roster entry's `allowedTools` (blitz.config.yml), then `/blitz retry` the issue.",
      '',
    );
    for (const i of refused)
      out.push(
        `- ${ref(i.number)}: ${(i.refused ?? [])
          .slice(0, 10)
          .map((r) => markdownText(r, 60))
          .join(', ')}`,
      );
  }
  if (input.blockers.length > 0) {
    out.push('', '#### Not runnable', '');
    for (const b of input.blockers) out.push(blockerLine(b));
  }
  if (input.budget) out.push('', budgetLine(input.budget));
  if (input.entries) {
    out.push('', '#### Roster entries', '');
    for (const e of input.entries) out.push(`- ${markdownText(e.name, 60)}: ${markdownText(e.state, 200)}`);
  }
  if (input.forgePace) out.push('', slowedLine(input.forgePace));
  if (input.storeOutage) out.push('', `**Store outage:** ${markdownText(input.storeOutage, 300)}.`);
  for (const w of input.warnings ?? []) out.push('', `**Warning:** ${markdownText(w, 300)}.`);
  if (input.readinessUnmet && input.readinessUnmet.length > 0) {
    out.push('', '#### Not ready yet', '');
    for (const u of input.readinessUnmet) out.push(`- ${markdownText(u, 200)}`);
  }
  if (input.checks) out.push('', `**Checks:** ${checksLine(input.checks)}`);
  if (input.ship) {
    out.push('', shipLine(input.ship));
    for (const r of input.ship.reasons) out.push(`- ${markdownText(r, 160)}`);
  }
  if (input.notifyFailures.length > 0) {
    out.push('', '#### Notifications that failed', '');
    for (const f of input.notifyFailures)
      out.push(`- ${markdownText(f.target, 40)}: ${markdownText(f.error, 200)}`);
  }
  const graph = parts.graph ? renderFlowchart(input.issues) : undefined;
  if (graph) {
    out.push(
      '',
      '<details><summary>Dependency graph</summary>',
      '',
      '```mermaid',
      graph,
      '```',
      '',
      '</details>',
    );
  } else if (input.issues.length > 0) {
    out.push('', '_Dependency graph omitted: too many issues to draw._');
  }
  return `${out.join('\n')}\n`;
};

/** The whole comment body. Over the size limit it drops the graph, then table rows, never the marker. */
export const renderDashboard = (input: DashboardInput): string => {
  let body = renderWith(input, { graph: true, rows: input.issues.length });
  if (body.length <= maxDashboardChars) return body;
  let rows = input.issues.length;
  do {
    rows = Math.floor(rows * 0.8);
    body = renderWith(input, { graph: false, rows });
  } while (body.length > maxDashboardChars && rows > 0);
  return body;
};
