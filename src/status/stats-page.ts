// `/stats`: the same figures as `blitz-bot stats`, as a page: attempts by outcome, tokens, pass rate
// per roster entry and tier with the 20–80 % band highlighted, and the issues waiting on someone.
import { html } from 'hono/html';
import { type Html, page } from './html-layout.ts';
import type { AttemptStats } from './stats.ts';

const percent = (rate: number | undefined): string =>
  rate === undefined ? '–' : `${Math.round(rate * 100)} %`;

export const statsPage = (s: AttemptStats): Html =>
  page(
    { title: 'Stats' },
    html`<h1>Attempt stats</h1>
<p id="totals">${s.attempts} attempts: ${s.byOutcome.solved} solved, ${s.byOutcome.unsolved} unsolved, ${s.byOutcome.stalled} stalled, ${s.byOutcome.environment_failure} environment failures, ${s.byOutcome.cancelled} cancelled, ${s.byOutcome.open} running.
Tokens: ${s.tokens.input} in, ${s.tokens.output} out, ${s.tokens.cache ?? 0} cache.</p>
<h2>Pass rate by roster entry and tier</h2>
<p class="muted">Highlighted: between 20 % and 80 %, where an entry is neither hopeless nor trivial at that tier. Environment failures, cancels and running attempts are not counted.</p>
<table id="pass-rates">
<thead><tr><th>entry</th><th>tool</th><th>tier</th><th>attempts</th><th>solved / counted</th><th>pass rate</th><th>tokens</th></tr></thead>
<tbody>${s.rows.map(
      (
        r,
      ) => html`<tr class="${r.inBand ? 'band' : ''}" data-entry="${r.rosterEntry}" data-tier="${r.tier}" data-band="${r.inBand ? 'yes' : 'no'}">
<td>${r.rosterEntry}</td><td>${r.tool}</td><td>${r.tier}</td><td>${r.attempts}</td><td>${r.solved} / ${r.counted}</td><td>${percent(r.passRate)}${r.inBand ? ' ★' : ''}</td><td>${r.tokens}</td>
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
