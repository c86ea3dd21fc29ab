// The status pages' frame: one HTML skeleton with inline CSS, escaping by construction (hono/html
// escapes every interpolated value; `raw` is used only for text this module or Mermaid wrote), and
// badge colours taken from the dashboard's Mermaid classDefs so the table matches the graph.
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { renderFlowchart } from '../dashboard/mermaid.ts';
import { dashboardIssueStates } from '../dashboard/types.ts';
import { anyStateWords } from '../plan/state-words.ts';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

// One-node flowcharts per state give the dashboard's own classDef lines: parsed, not re-typed.
const classDefs = (): string => {
  const source =
    renderFlowchart([{ number: 1, title: 'x', state: 'blocked', attempts: 0, blockedBy: [] }]) ?? '';
  const rules: string[] = [];
  for (const line of source.split('\n')) {
    const m = /^\s*classDef (\w+) (.+)$/.exec(line);
    if (!m || !(dashboardIssueStates as readonly string[]).includes(m[1]!)) continue;
    const decls = m[2]!
      .split(',')
      .map((d) => d.split(':'))
      .filter(([k]) => k === 'fill' || k === 'color' || k === 'stroke')
      .map(([k, v]) =>
        k === 'fill' ? `background:${v}` : k === 'stroke' ? `border-color:${v}` : `color:${v}`,
      );
    rules.push(`.state-${m[1]}{${decls.join(';')}}`);
  }
  return rules.join('\n');
};

export const baseCss = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1f2328;background:#fff}
header{background:#24292f;color:#fff;padding:.6rem 1.2rem;display:flex;gap:1.2rem;align-items:center}
header a{color:#fff;text-decoration:none}header .brand{font-weight:600}
main{padding:1rem 1.2rem;max-width:1200px}
h1{font-size:1.4rem;margin:.2rem 0 .8rem}h2{font-size:1.1rem;margin:1.4rem 0 .5rem}
table{border-collapse:collapse;width:100%;margin:.4rem 0}
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #d0d7de;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
.badge{display:inline-block;padding:0 .45rem;border:1px solid #d0d7de;border-radius:1rem;font-size:12px;white-space:nowrap}
.muted{color:#656d76}.band{background:#fff8c5;font-weight:600}
pre{background:#f6f8fa;padding:.6rem;overflow:auto;white-space:pre-wrap;word-break:break-word;max-height:30rem}
pre.mermaid{background:#fff;max-height:none}
details{border:1px solid #d0d7de;border-radius:6px;margin:.35rem 0;padding:.2rem .6rem}
details.error{border-color:#cf222e}summary{cursor:pointer}
.turn{border-left:3px solid #d0d7de;padding-left:.7rem;margin:.8rem 0}
form.login{max-width:22rem;display:grid;gap:.6rem}input{font:inherit;padding:.35rem}
${classDefs()}
`;

export interface PageOptions {
  title: string;
  /** Path of the SSE stream that makes the page live. */
  live?: string;
  /** Load Mermaid and the page script. */
  scripts?: boolean;
  /** Re-read the page every few seconds and swap its `[data-live-part]` elements (a running attempt). */
  poll?: boolean;
}

export const page = (opts: PageOptions, body: Html): Html => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${opts.title} · blitz-bot</title>
<style>${raw(baseCss)}</style>
</head>
<body${opts.live ? html` data-live="${opts.live}"` : ''}${opts.poll ? html` data-poll="true"` : ''}>
<header><a class="brand" href="/">blitz-bot</a><a href="/">runs</a><a href="/stats">stats</a></header>
<main>${body}</main>
${opts.scripts ? html`<script src="/status/assets/mermaid.min.js"></script><script src="/status/assets/status.js"></script>` : opts.poll ? html`<script src="/status/assets/status.js"></script>` : ''}
</body>
</html>`;

/** A state's badge: its name in the class (for the style sheet and scripts), its words for the reader. */
export const stateBadge = (state: string): Html =>
  html`<span class="badge state-${/^[a-z_]+$/.test(state) ? state : 'unknown'}">${anyStateWords(state)}</span>`;

/** `2026-11-28 10:05` in UTC, or a dash. */
export const when = (iso: string | undefined): string =>
  iso ? iso.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, '') : '–';

export const duration = (start: string, end: string | undefined): string => {
  if (!end) return 'running';
  const s = Math.max(0, Math.round((Date.parse(end) - Date.parse(start)) / 1000));
  return s < 60
    ? `${s}s`
    : s < 3600
      ? `${Math.floor(s / 60)}m ${s % 60}s`
      : `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
};
