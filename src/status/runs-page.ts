// `/`: every run, the active ones first (then the most recently changed): repo, kind, milestone,
// progress, started, state.
import { html } from 'hono/html';
import type { RunRecord, RunRecordState } from '../store/run-store.ts';
import { type Html, page, stateBadge, when } from './html-layout.ts';

export interface RunSummary {
  run: RunRecord;
  done: number;
  total: number;
}

const inactive: ReadonlySet<RunRecordState> = new Set(['done', 'cancelled']);

export const isActive = (run: RunRecord): boolean => !inactive.has(run.state);

export const orderRuns = (runs: readonly RunSummary[]): RunSummary[] =>
  [...runs].sort(
    (a, b) =>
      Number(isActive(b.run)) - Number(isActive(a.run)) ||
      b.run.updatedAt.localeCompare(a.run.updatedAt) ||
      a.run.id.localeCompare(b.run.id),
  );

export const runsPage = (runs: readonly RunSummary[]): Html =>
  page(
    { title: 'Runs' },
    html`<h1>Runs</h1>
${
  runs.length === 0
    ? html`<p class="muted">No runs yet. Comment <code>/blitz</code> on an issue to start one.</p>`
    : html`<table id="runs">
<thead><tr><th>run</th><th>repo</th><th>kind</th><th>milestone</th><th>progress</th><th>started</th><th>state</th></tr></thead>
<tbody>${orderRuns(runs).map(
        ({
          run,
          done,
          total,
        }) => html`<tr data-run="${run.id}" class="${isActive(run) ? 'active' : 'inactive'}">
<td><a href="/runs/${encodeURIComponent(run.id)}">${run.id}</a></td>
<td>${run.repo} <span class="muted">${run.forge}</span></td>
<td>${run.kind}</td>
<td>${run.milestoneTitle}</td>
<td>${done}/${total}</td>
<td>${when(run.createdAt)}</td>
<td>${stateBadge(run.state)}</td>
</tr>`,
      )}</tbody></table>`
}`,
  );
