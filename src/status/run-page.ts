// `/runs/:id`: the API's run object (GET /api/v1/runs/{id}) as a page: the DAG drawn by Mermaid and
// coloured by state, the issue table, dependency waves and attempts. The `#run` section is what the
// live script swaps on each run change.
import { html } from 'hono/html';
import type { RunDetail } from './api-schemas.ts';
import { type Html, page } from './html-layout.ts';
import { attemptsTable, dagSection, issueTable, layersSection, summarySection } from './run-sections.ts';

export const runPage = (v: RunDetail): Html => {
  const base = `/runs/${encodeURIComponent(v.run.id)}`;
  return page(
    { title: `Run ${v.run.id}`, live: `${base}/events`, scripts: true },
    html`<section id="run" data-updated="${v.run.updatedAt}" data-state="${v.run.state}">
<h1>Run ${v.run.id}</h1>
<p><a href="${base}/report.html">report</a> · <a href="${base}/report.html?download=1">download report</a></p>
${summarySection(v)}
<h2>Graph</h2>
${dagSection(v)}
<h2>Issues</h2>
${issueTable(v)}
<h2>Waves by dependency</h2>
${layersSection(v)}
<h2>Attempts</h2>
${attemptsTable(v, true)}
</section>`,
  );
};
