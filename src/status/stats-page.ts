// `/stats`: the API's stats object (GET /api/v1/stats, the same one `blitz-bot stats` prints), as
// a page: attempts by outcome, tokens, pass rate per roster entry and tier with the 20–80 % band
// highlighted, and the issues waiting on someone.
import { html } from 'hono/html';
import type { ApiStats } from './api-schemas.ts';
import { type Html, page } from './html-layout.ts';

const percent = (rate: number | null): string => (rate === null ? '–' : `${Math.round(rate * 100)} %`);

export const statsPage = (s: ApiStats): Html => {
  const count = (outcome: string): number => s.byOutcome[outcome] ?? 0;
  return page(
    { title: 'Stats' },
    html`<h1>Attempt stats</h1>
<p id="totals">${s.attempts} attempts: ${count('solved')} solved, ${count('unsolved')} unsolved, ${count('stalled')} stalled, ${count('environment_failure')} environment failures, ${count('cancelled')} cancelled, ${count('open')} running.
Tokens: ${s.tokens.input} in, ${s.tokens.output} out, ${s.tokens.cache} cache; cost <span id="cost">${s.cost.usd}</span>.</p>
<h2>Pass rate by roster entry and tier</h2>
<p class="muted">Highlighted: between 20 % and 80 %, where an entry is neither hopeless nor trivial at that tier. Environment failures, cancels and running attempts are not counted.</p>
<table id="pass-rates">
<thead><tr><th>entry</th><th>tool</th><th>tier</th><th>attempts</th><th>solved / counted</th><th>pass rate</th><th>tokens</th><th>cost</th></tr></thead>
<tbody>${s.rows.map(
      (
        r,
      ) => html`<tr class="${r.inBand ? 'band' : ''}" data-entry="${r.rosterEntry}" data-tier="${r.tier}" data-band="${r.inBand ? 'yes' : 'no'}">
<td>${r.rosterEntry}</td><td>${r.tool}</td><td>${r.tier}</td><td>${r.attempts}</td><td>${r.solved} / ${r.counted}</td><td>${percent(r.passRate)}${r.inBand ? ' ★' : ''}</td><td>${r.tokens}</td><td class="cost">${r.cost.usd}</td>
</tr>`,
    )}</tbody></table>
<h2>Unsolved, waiting</h2>
${
  s.waiting.length === 0
    ? html`<p class="muted">Nothing is waiting.</p>`
    : html`<table id="waiting"><thead><tr><th>issue</th><th>title</th><th>run</th><th>attempts</th><th>last</th><th>waiting for</th></tr></thead>
<tbody>${s.waiting.map(
        (w) =>
          html`<tr data-issue="${w.number}"><td>${w.repo}#${w.number}</td><td>${w.title ?? ''}</td><td><a href="/runs/${encodeURIComponent(w.runId)}">${w.runId}</a></td><td>${w.attempts}</td><td>${w.lastOutcome}, up to ${w.highestTier}</td><td>${w.waitingFor === 'person' ? 'a person' : 'a stronger model'}</td></tr>`,
      )}</tbody></table>`
}`,
  );
};
