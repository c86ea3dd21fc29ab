// `/`: every run of the API's run list (GET /api/v1/runs), the live ones first (then the most
// recently changed): repo, kind, milestone, progress, started, state; then the remote runners (live or
// lost, clock offset), each forge installation's rate-limit budget and pace, and the deliveries given up on.
import { html } from 'hono/html';
import type { Delivery } from '../store/types.ts';
import type { RunSummary } from './api-schemas.ts';
import { type BudgetRow, forgeBudgetSection } from './forge-budget.ts';
import { type Html, page, stateBadge, when } from './html-layout.ts';
import { type RunnerRow, runnersSection } from './runners-section.ts';

/** The live runs first, then the most recently changed. */
export const orderRuns = (runs: readonly RunSummary[]): RunSummary[] =>
  [...runs].sort(
    (a, b) =>
      Number(b.live) - Number(a.live) || b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id),
  );

/** Deliveries given up on after their retries: a person looks at why (the error) and redelivers by hand. */
const failedDeliveries = (failed: readonly Delivery[]) =>
  failed.length === 0
    ? ''
    : html`<h2>Failed deliveries</h2>
<p class="muted">Webhook deliveries whose processing failed on every retry; they are not tried again.</p>
<table id="failed-deliveries">
<thead><tr><th>forge</th><th>delivery</th><th>event</th><th>tries</th><th>failed</th><th>last error</th></tr></thead>
<tbody>${failed.map(
        (
          d,
        ) => html`<tr><td>${d.forge}</td><td><code>${d.deliveryId}</code></td><td>${d.event}${d.action ? `.${d.action}` : ''}</td>
<td>${d.attempts}</td><td>${d.failedAt ? when(d.failedAt) : ''}</td><td>${d.error ?? ''}</td></tr>`,
      )}</tbody></table>`;

export const runsPage = (
  runs: readonly RunSummary[],
  failed: readonly Delivery[] = [],
  budget: readonly BudgetRow[] = [],
  runners: readonly RunnerRow[] = [],
): Html =>
  page(
    { title: 'Runs' },
    html`<h1>Runs</h1>
${
  runs.length === 0
    ? html`<p class="muted">No runs yet. Comment <code>/blitz</code> on an issue to start one.</p>`
    : html`<table id="runs">
<thead><tr><th>run</th><th>repo</th><th>kind</th><th>milestone</th><th>progress</th><th>cost</th><th>started</th><th>state</th></tr></thead>
<tbody>${orderRuns(runs).map(
        (
          run,
        ) => html`<tr data-run="${run.id}" data-state="${run.state}" class="${run.live ? 'active' : 'inactive'}">
<td><a href="/runs/${encodeURIComponent(run.id)}">${run.id}</a></td>
<td>${run.repo} <span class="muted">${run.forge}</span></td>
<td>${run.kind}</td>
<td>${run.title}</td>
<td>${run.issues.done}/${run.issues.total}</td>
<td class="cost">${run.cost.usd}</td>
<td>${when(run.createdAt)}</td>
<td>${stateBadge(run.state)}${run.attention ? html`<div class="muted" data-attention="${run.attention.state}">${run.attention.reason} — <code>${run.attention.command}</code></div>` : ''}</td>
</tr>`,
      )}</tbody></table>`
}
${runnersSection(runners)}
${forgeBudgetSection(budget)}
${failedDeliveries(failed)}`,
  );
