// The parts of a run that both the live run page and the downloadable report show, rendered from
// the API's run object (GET /api/v1/runs/{id}): summary, DAG, issue table, dependency waves and
// attempts. Every value from outside (titles, errors, names) goes through hono/html's escaping.
import { html } from 'hono/html';
import { renderFlowchart } from '../dashboard/mermaid.ts';
import { type DashboardIssueState, dashboardIssueStates } from '../dashboard/types.ts';
import { maxConflictResumes } from '../plan/merge-conflict.ts';
import { outcomeStateWords } from '../plan/state-words.ts';
import type { RunDetail } from './api-schemas.ts';
import { duration, type Html, stateBadge, when } from './html-layout.ts';

const knownStates: ReadonlySet<string> = new Set(dashboardIssueStates);

/** Mermaid flowchart source of the run's issues; undefined when there is nothing (or too much) to draw. */
export const flowchartOf = (d: RunDetail): string | undefined =>
  renderFlowchart(
    d.issues.map((i) => ({
      number: i.number,
      title: i.title ?? '',
      state: (knownStates.has(i.state) ? i.state : 'blocked') as DashboardIssueState,
      ...(i.epic ? { epic: true } : {}),
      attempts: i.attempts.length,
      blockedBy: i.blockedBy,
    })),
  );

/** The named state the run waits in for a person: which, why, and the command that continues. */
export const attentionRow = (a: RunDetail['run']['attention']): Html | string =>
  a
    ? html`<tr><th>needs</th><td id="run-attention" data-attention="${a.state}">${stateBadge(a.state)} ${a.reason} — <code>${a.command}</code></td></tr>`
    : '';

export const summarySection = (d: RunDetail): Html => {
  const r = d.run;
  const b = d.build;
  return html`<table class="summary">
<tr><th>repo</th><td>${r.repo} <span class="muted">(${r.forge})</span></td></tr>
<tr><th>milestone</th><td>${r.title}</td></tr>
<tr><th>state</th><td id="run-state">${stateBadge(r.state)}${r.reason ? html` <span class="muted">${r.reason}</span>` : ''}</td></tr>
${attentionRow(r.attention)}
<tr><th>progress</th><td id="run-progress">${r.issues.done}/${r.issues.total} issues merged or closed</td></tr>
<tr><th>cost</th><td id="run-cost">${r.cost.usd}</td></tr>
<tr><th>integration branch</th><td><code>${d.integrationBranch}</code></td></tr>
<tr><th>wave</th><td>${d.currentWave + 1}${b ? html` · last build ${b.status}${b.covers.length ? html` covering ${b.covers.join(', ')}` : ''}${b.failures ? html` (${b.failures} failure(s))` : ''}` : ''}</td></tr>
<tr><th>started</th><td>${when(r.createdAt)} <span class="muted">updated ${when(r.updatedAt)}</span></td></tr>
</table>`;
};

/** The DAG as Mermaid source; the page script (or the report's inlined Mermaid) draws it as SVG. */
export const dagSection = (d: RunDetail): Html => {
  const flowchart = flowchartOf(d);
  return flowchart
    ? html`<pre class="mermaid" id="dag">${flowchart}</pre>`
    : html`<p class="muted" id="dag-missing">No graph to draw (no issues, or more than the graph can show); the table has every issue.</p>`;
};

export const issueTable = (d: RunDetail): Html => html`<table id="issues">
<thead><tr><th>#</th><th>title</th><th>state</th><th>blocked by</th><th>PR</th><th>attempts</th><th>tokens</th><th>cost</th></tr></thead>
<tbody>${d.issues.map(
  (i) => html`<tr data-issue="${i.number}" data-state="${i.state}" data-attempts="${i.attempts.join(' ')}">
<td>${i.url ? html`<a href="${i.url}">#${i.number}</a>` : `#${i.number}`}${i.epic ? html` <span class="muted">epic</span>` : ''}</td>
<td class="title">${i.title ?? html`<span class="muted">(title not known since restart)</span>`}${i.lastError ? html`<div class="muted">${i.lastError}</div>` : ''}</td>
<td>${stateBadge(i.state)}${i.waiting ? html`<div class="muted waiting">${i.waiting}</div>` : ''}${i.conflictTries ? html`<div class="muted conflicts">merge conflict sent back to its session: try ${i.conflictTries} of ${maxConflictResumes}</div>` : ''}</td>
<td>${i.blockedBy.map((b) => `#${b}`).join(', ')}</td>
<td>${i.pr ? (i.prUrl ? html`<a href="${i.prUrl}">#${i.pr}</a>` : `#${i.pr}`) : ''}${i.mergedSha ? html` <code>${i.mergedSha.slice(0, 7)}</code>` : ''}</td>
<td>${i.attempts.length}</td>
<td>${i.tokens}</td>
<td class="cost">${i.cost.usd}</td>
</tr>`,
)}</tbody></table>`;

export const layersSection = (d: RunDetail): Html =>
  html`<ol id="layers">${d.waves.map(
    (w) =>
      html`<li data-wave="${w.wave}">${w.issues.map((n) => html`<span class="badge">#${n}</span> `)}</li>`,
  )}</ol>`;

export const attemptsTable = (d: RunDetail, link: boolean): Html => html`<table id="attempts">
<thead><tr><th>n</th><th>issue</th><th>entry</th><th>model</th><th>tier</th><th>started</th><th>took</th><th>outcome</th><th>tokens</th><th>cost</th><th>nudges</th></tr></thead>
<tbody>${d.attempts.map(
  (
    a,
  ) => html`<tr data-attempt="${a.n}" data-issue="${a.issue.number}" data-outcome="${a.outcome ?? 'running'}">
<td>${link ? html`<a href="/runs/${encodeURIComponent(d.run.id)}/attempts/${a.n}">${a.n}</a>` : String(a.n)}</td>
<td>#${a.issue.number}</td>
<td>${a.rosterEntry} <span class="muted">${a.tool}</span></td>
<td>${a.model ?? ''}</td>
<td>${a.tier}</td>
<td>${when(a.startedAt)}</td>
<td>${duration(a.startedAt, a.endedAt ?? undefined)}</td>
<td>${a.outcome ? outcomeStateWords(a.outcome) : 'running'}${a.failureSummary ? html`<div class="muted">${a.failureSummary}</div>` : ''}</td>
<td>${a.tokens.input + a.tokens.output}</td>
<td class="cost">${a.cost.usd}</td>
<td>${a.nudges}</td>
</tr>`,
)}</tbody></table>`;
