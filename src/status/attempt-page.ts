// `/runs/:id/attempts/:n`: the API's attempt object (GET /api/v1/runs/{id}/attempts/{n}) with the
// attempt replayed from the worker's stream log (seed 003 "activity"): the prompt, each assistant
// turn with its tool calls and results collapsed in <details>, plain output, the final response and
// the tokens. While the worker runs, the page also shows the end of its log and re-reads itself (the
// page script's `data-poll`), so the log tails live; the text comes through the same redacting reader.
// All log text is escaped.
import { html } from 'hono/html';
import { outcomeStateWords } from '../plan/state-words.ts';
import type { ApiAttempt } from './api-schemas.ts';
import type { AttemptTimeline, ToolCall } from './attempt-timeline.ts';
import { duration, type Html, page, when } from './html-layout.ts';
import type { LogText } from './log-reader.ts';

const preview = (text: string, max = 90): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const toolDetails = (
  call: ToolCall,
): Html => html`<details class="tool${call.isError ? ' error' : ''}" data-tool="${call.name}">
<summary><strong>${call.name}</strong> <span class="muted">${preview(call.input)}</span>${call.isError ? html` <span class="badge state-failed">error</span>` : ''}</summary>
<h4>input</h4><pre>${call.input}</pre>
<h4>result</h4>${call.result === undefined ? html`<p class="muted">no result in the log</p>` : html`<pre>${call.result}</pre>`}
</details>`;

const usageText = (u: { input: number; output: number; cache?: number }): string =>
  `${u.input} in · ${u.output} out${u.cache ? ` · ${u.cache} cache` : ''}`;

const stepHtml = (s: AttemptTimeline['steps'][number]): Html => {
  if (s.kind === 'session')
    return html`<p class="muted">session ${s.sessionId ?? ''} ${s.model ? html`· model ${s.model}` : ''}</p>`;
  if (s.kind === 'turn')
    return html`<div class="turn">${s.texts.map((text) => html`<pre class="text">${text}</pre>`)}${s.tools.map(toolDetails)}${s.usage ? html`<div class="muted">tokens: ${usageText(s.usage)}</div>` : ''}</div>`;
  if (s.kind === 'output')
    return html`<details class="output"><summary class="muted">output: ${preview(s.text)}</summary><pre>${s.text}</pre></details>`;
  return html`<h2>Final response${s.isError ? ' (error)' : ''}</h2><pre id="final">${s.text}</pre>`;
};

/** What the agent CLI refused, and the allowlist line that lets it run (roster `allowedTools`). */
const refusedSection = (denials: ApiAttempt['permissionDenials']): Html => {
  const rules = [...new Set(denials.flatMap((d) => (d.rule ? [d.rule] : [])))];
  return html`<h2>Refused by the tool</h2>
<ul id="permission-denials">${denials.map((d) => html`<li><strong>${d.tool}</strong>${d.command ? html` <code>${d.command}</code>` : ''}${d.rule ? html` <span class="muted">allow with <code>${d.rule}</code></span>` : ''}</li>`)}</ul>
${rules.length > 0 ? html`<p>To allow them, add to the roster entry in <code>blitz.config.yml</code>:</p><pre id="allowlist-line">allowedTools: [${rules.map((r) => JSON.stringify(r)).join(', ')}]</pre>` : ''}`;
};

/** How many of the log's last lines a running attempt's page shows. */
export const liveLogLines = 200;

const lastLines = (text: string, n: number): string =>
  text.replace(/\n$/, '').split('\n').slice(-n).join('\n');

const liveLogSection = (log: LogText | undefined): Html =>
  html`<h2>Live log</h2><p class="muted">The end of the worker's log while it runs, redacted; this page re-reads it every few seconds.</p>
${log ? html`<pre id="live-log" data-live-part>${lastLines(log.text, liveLogLines)}</pre>` : html`<pre id="live-log" data-live-part class="muted">(nothing written yet, or the log is on another runner host)</pre>`}`;

export const timelineSection = (t: AttemptTimeline): Html =>
  html`<div id="timeline">${t.steps.map(stepHtml)}</div>`;

export const attemptPage = (input: {
  runId: string;
  attempt: ApiAttempt;
  prompt?: LogText;
  log?: LogText;
  timeline?: AttemptTimeline;
}): Html => {
  const a = input.attempt;
  const t = input.timeline;
  const tokens = t?.tokens ?? a.tokens;
  const running = a.endedAt === null;
  return page(
    { title: `Attempt ${a.n} of ${input.runId}`, ...(running ? { poll: true } : {}) },
    html`<h1 data-attempt="${a.n}" data-issue="${a.issue.number}">Attempt ${a.n} · #${a.issue.number} ${a.issue.title}</h1>
<p><a href="/runs/${encodeURIComponent(input.runId)}">back to run ${input.runId}</a></p>
<table class="summary" id="summary" data-live-part>
<tr><th>entry</th><td>${a.rosterEntry} <span class="muted">${a.tool} ${a.model ?? ''}</span> · tier ${a.tier}</td></tr>
<tr><th>branch</th><td><code>${a.branch}</code> off <code>${a.baseBranch}</code></td></tr>
<tr><th>started</th><td>${when(a.startedAt)} · took ${duration(a.startedAt, a.endedAt ?? undefined)} · nudges ${a.nudges}</td></tr>
<tr><th>outcome</th><td id="outcome">${a.outcome ? outcomeStateWords(a.outcome) : 'running'}${a.failureSummary ? html` <span class="muted">${a.failureSummary}</span>` : ''}</td></tr>
<tr><th>tokens</th><td id="tokens">${usageText(tokens)}</td></tr>
<tr><th>cost</th><td id="cost">${a.cost.usd}</td></tr>
<tr><th>tool calls</th><td>${t ? t.toolCalls : '–'}</td></tr>
</table>
${a.permissionDenials.length > 0 ? refusedSection(a.permissionDenials) : ''}
${running ? liveLogSection(input.log) : ''}
<h2>Prompt</h2>
${input.prompt ? html`<details open><summary>prompt${input.prompt.truncated ? ' (tail only)' : ''}</summary><pre id="prompt">${input.prompt.text}</pre></details>` : html`<p class="muted">The prompt file is not readable here.</p>`}
<h2>Timeline</h2>
${t ? html`${input.log?.truncated ? html`<p class="muted">The log is long: only its tail is shown.</p>` : ''}${timelineSection(t)}` : html`<p class="muted" id="no-log">The worker's log is not readable here (another runner host, or cleaned up).</p>`}
${a.logExcerpt ? html`<h2>Log excerpt</h2><p class="muted">The end of the worker's log, as its runner reported it.</p><pre id="log-excerpt">${a.logExcerpt}</pre>` : ''}`,
  );
};
