// `/runs/:id/report.html`: one self-contained HTML file for the whole run, to download or attach:
// inline CSS, the DAG as Mermaid source drawn by the inlined Mermaid bundle (the issue table is the
// fallback where scripts do not run), issues, layers and attempts with their timelines collapsed.
import { html, raw } from 'hono/html';
import type { RunDetail } from './api-schemas.ts';
import { timelineSection } from './attempt-page.ts';
import type { AttemptTimeline } from './attempt-timeline.ts';
import { baseCss, type Html, when } from './html-layout.ts';
import { attemptsTable, dagSection, issueTable, layersSection, summarySection } from './run-sections.ts';

// A `</script` inside the bundle would end the inline script early; `<\/` means the same in JS strings.
const inlineScript = (js: string): string => js.replace(/<\/(script)/gi, '<\\/$1');

export const reportHtml = (input: {
  /** The API's run object (GET /api/v1/runs/{id}). */
  view: RunDetail;
  /** Timelines by 1-based attempt number, where the log was readable. */
  timelines: Map<number, AttemptTimeline>;
  /** Mermaid's browser bundle; without it the report shows the source and the table only. */
  mermaid?: string;
  generatedAt: Date;
}): Html => {
  const v = input.view;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>blitz-bot run ${v.run.id}</title>
<style>${raw(baseCss)}</style>
</head>
<body>
<main>
<h1>Run ${v.run.id} · ${v.run.title}</h1>
<p class="muted">Report generated ${when(input.generatedAt.toISOString())} UTC by blitz-bot.</p>
${summarySection(v)}
<h2>Graph</h2>
${dagSection(v)}
<h2>Issues</h2>
${issueTable(v)}
<h2>Waves by dependency</h2>
${layersSection(v)}
<h2>Attempts</h2>
${attemptsTable(v, false)}
${v.attempts.map((a) => {
  const t = input.timelines.get(a.n);
  return html`<details class="attempt" data-attempt="${a.n}"><summary>Attempt ${a.n} · #${a.issue.number} · ${a.rosterEntry} · ${a.outcome ?? 'running'}</summary>
${t ? timelineSection(t) : html`<p class="muted">Log not readable when the report was made.</p>`}
</details>`;
})}
</main>
${
  input.mermaid
    ? html`<script>${raw(inlineScript(input.mermaid))}</script>
<script>window.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' }); window.mermaid.run({ querySelector: 'pre.mermaid' });</script>`
    : ''
}
</body>
</html>`;
};
