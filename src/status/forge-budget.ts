// The runs page's "Forge rate limits" section: per forge installation, what its last answers said of
// each rate-limit window (remaining of the limit, when it resets), the content-creating writes of the
// last minute and hour against GitHub's secondary limit, and the pace runs on it keep: full speed, or
// slowed and why (the same words as the run's dashboard). Pure: the tracker's snapshots in, HTML out.
import { html } from 'hono/html';
import {
  type BudgetSnapshot,
  type BudgetTracker,
  type Pace,
  paceFor,
  secondaryLimits,
} from '../forges/rate-budget.ts';
import { type Html, when } from './html-layout.ts';

export interface BudgetRow {
  key: string;
  windows: { resource: string; remaining: number; limit: number; resetsAt: string; seenAt: string }[];
  writesLastMinute: number;
  writesLastHour: number;
  pace: Pace;
}

/** One row per installation (sorted by key), its windows by resource name. */
export const budgetRows = (tracker: Pick<BudgetTracker, 'all' | 'paceOf'>): BudgetRow[] =>
  tracker.all().map((s: BudgetSnapshot) => ({
    key: s.key,
    windows: Object.entries(s.resources)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([resource, w]) => ({
        resource,
        remaining: w.remaining,
        limit: w.limit,
        resetsAt: new Date(w.resetAt).toISOString(),
        seenAt: new Date(w.seenAt).toISOString(),
      })),
    writesLastMinute: s.writesLastMinute,
    writesLastHour: s.writesLastHour,
    pace: paceFor(tracker, s.key),
  }));

const paceCell = (p: Pace): Html =>
  p.reason
    ? html`<span class="badge" data-pace="slowed">slowed</span> ${p.reason}`
    : html`<span data-pace="full">full speed</span>`;

/** GitHub's secondary limit is GitHub's: other forges show the counts alone. */
const writesCell = (r: BudgetRow): string =>
  r.key === 'github' || r.key.startsWith('github:')
    ? `${r.writesLastMinute} / ${secondaryLimits.perMinute}, ${r.writesLastHour} / ${secondaryLimits.perHour}`
    : `${r.writesLastMinute}, ${r.writesLastHour}`;

export const forgeBudgetSection = (rows: readonly BudgetRow[]): Html | string =>
  rows.length === 0
    ? ''
    : html`<h2>Forge rate limits</h2>
<p class="muted">As the forges' last answers said (x-ratelimit headers); runs slow down before a limit is hit.</p>
<table id="forge-budget">
<thead><tr><th>installation</th><th>window</th><th>remaining</th><th>resets</th><th>writes (minute / hour)</th><th>pace</th></tr></thead>
<tbody>${rows.map(
        (r) => html`<tr data-budget="${r.key}">
<td>${r.key}</td>
<td>${r.windows.length ? r.windows.map((w) => html`<div>${w.resource}</div>`) : html`<span class="muted">none reported</span>`}</td>
<td>${r.windows.map((w) => html`<div data-resource="${w.resource}">${w.remaining} / ${w.limit}</div>`)}</td>
<td>${r.windows.map((w) => html`<div>${when(w.resetsAt)}</div>`)}</td>
<td>${writesCell(r)}</td>
<td>${paceCell(r.pace)}</td>
</tr>`,
      )}</tbody></table>`;
