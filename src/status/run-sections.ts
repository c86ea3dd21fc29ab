// The parts of a run that both the live run page and the downloadable report show: summary, DAG,
// issue table, dependency layers and attempts. Every value from outside (titles, errors, names)
// goes through hono/html's escaping.
import { html } from 'hono/html';
import type { AttemptRecord } from '../runner/types.ts';
import { duration, type Html, stateBadge, when } from './html-layout.ts';
import type { RunView } from './run-view.ts';

const tokensOf = (a: AttemptRecord): number => a.tokens.input + a.tokens.output;

export const summarySection = (v: RunView): Html => {
  const p = v.run.progress;
  return html`<table class="summary">
<tr><th>repo</th><td>${v.run.repo} <span class="muted">(${v.run.forge})</span></td></tr>
<tr><th>milestone</th><td>${v.run.milestoneTitle}</td></tr>
<tr><th>state</th><td id="run-state">${stateBadge(v.run.state)}${p.reason ? html` <span class="muted">${p.reason}</span>` : ''}</td></tr>
<tr><th>progress</th><td id="run-progress">${v.done}/${v.total} issues merged or closed</td></tr>
<tr><th>integration branch</th><td><code>${v.run.integrationBranch}</code></td></tr>
<tr><th>wave</th><td>${(p.wave ?? 0) + 1}${p.build ? html` · last build ${p.build.status}${p.build.covers.length ? html` covering ${p.build.covers.join(', ')}` : ''}${p.build.failures ? html` (${p.build.failures} failure(s))` : ''}` : ''}</td></tr>
<tr><th>started</th><td>${when(v.run.createdAt)} <span class="muted">updated ${when(v.run.updatedAt)}</span></td></tr>
</table>`;
};

/** The DAG as Mermaid source; the page script (or the report's inlined Mermaid) draws it as SVG. */
export const dagSection = (v: RunView): Html =>
  v.flowchart
    ? html`<pre class="mermaid" id="dag">${v.flowchart}</pre>`
    : html`<p class="muted" id="dag-missing">No graph to draw (no issues, or more than the graph can show); the table has every issue.</p>`;

export const issueTable = (v: RunView): Html => html`<table id="issues">
<thead><tr><th>#</th><th>title</th><th>state</th><th>blocked by</th><th>PR</th><th>attempts</th><th>tokens</th></tr></thead>
<tbody>${v.issues.map(
  (i) => html`<tr data-issue="${i.number}" data-state="${i.state}">
<td>#${i.number}${i.epic ? html` <span class="muted">epic</span>` : ''}</td>
<td class="title">${i.title ?? html`<span class="muted">(title not known since restart)</span>`}${i.lastError ? html`<div class="muted">${i.lastError}</div>` : ''}</td>
<td>${stateBadge(i.state)}</td>
<td>${i.blockedBy.map((b) => `#${b}`).join(', ')}</td>
<td>${i.prNumber ? `#${i.prNumber}` : ''}${i.mergedSha ? html` <code>${i.mergedSha.slice(0, 7)}</code>` : ''}</td>
<td>${i.attempts.length}</td>
<td>${i.tokens}</td>
</tr>`,
)}</tbody></table>`;

export const layersSection = (v: RunView): Html =>
  html`<ol id="layers">${v.layers.map(
    (layer) => html`<li>${layer.map((n) => html`<span class="badge">#${n}</span> `)}</li>`,
  )}</ol>`;

export const attemptsTable = (v: RunView, link: boolean): Html => html`<table id="attempts">
<thead><tr><th>n</th><th>issue</th><th>entry</th><th>model</th><th>tier</th><th>started</th><th>took</th><th>outcome</th><th>tokens</th><th>nudges</th></tr></thead>
<tbody>${v.attempts.map(
  (a, i) => html`<tr data-attempt="${i + 1}">
<td>${link ? html`<a href="/runs/${encodeURIComponent(v.run.id)}/attempts/${i + 1}">${i + 1}</a>` : String(i + 1)}</td>
<td>#${a.issue.number}</td>
<td>${a.rosterEntry} <span class="muted">${a.tool}</span></td>
<td>${a.model ?? ''}</td>
<td>${a.tier}</td>
<td>${when(a.startedAt)}</td>
<td>${duration(a.startedAt, a.endedAt)}</td>
<td>${a.outcome ?? 'running'}${a.failureSummary ? html`<div class="muted">${a.failureSummary}</div>` : ''}</td>
<td>${tokensOf(a)}</td>
<td>${a.nudges}</td>
</tr>`,
)}</tbody></table>`;
