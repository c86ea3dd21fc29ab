// The runs page's "Runners" section: every remote runner with a live token, whether the bot hears
// from it (live), has stopped hearing from it (lost: its jobs moved or were dropped), or never has;
// when it was last heard from, what it serves, and how far its clock is off the bot's when that is
// more than a minute (the bot's clock decides; remote-runner/clock-skew.ts). Pure: rows in, HTML out.
import { html } from 'hono/html';
import { skewShown, skewWords } from '../remote-runner/clock-skew.ts';
import type { RunnerTokenInfo } from '../store/runner-tokens.ts';
import { type Html, when } from './html-layout.ts';

export interface RunnerRow {
  name: string;
  state: 'live' | 'lost' | 'never_seen';
  lastSeenAt?: string;
  lostAt?: string;
  /** Said only when the runner's clock is more than a minute off the bot's. */
  clockOff?: string;
  serves: string;
}

/** Runners with a live token, by name; a revoked one is not registered any more. */
export const runnerRows = (tokens: readonly RunnerTokenInfo[]): RunnerRow[] =>
  tokens
    .filter((t) => !t.revokedAt)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((t) => ({
      name: t.name,
      state: t.lostAt ? 'lost' : t.lastSeenAt ? 'live' : 'never_seen',
      ...(t.lastSeenAt ? { lastSeenAt: t.lastSeenAt } : {}),
      ...(t.lostAt ? { lostAt: t.lostAt } : {}),
      ...(skewShown(t.clockSkewMs) ? { clockOff: skewWords(t.clockSkewMs) } : {}),
      serves: t.advert ? `${t.advert.roles.join(', ')} · ${t.advert.repos.join(', ')}` : '',
    }));

const stateCell = (r: RunnerRow): Html =>
  r.state === 'lost'
    ? html`<span class="badge state-lost">lost</span> since ${when(r.lostAt)}`
    : r.state === 'live'
      ? html`<span class="badge state-live">live</span>`
      : html`<span class="muted">never heard from</span>`;

export const runnersSection = (rows: readonly RunnerRow[]): Html | string =>
  rows.length === 0
    ? ''
    : html`<h2>Runners</h2>
<p class="muted">Remote runners with a live token. A runner not heard from for a job lease is lost: the jobs it held go to other runners, those waiting for its host are dropped.</p>
<table id="runners">
<thead><tr><th>runner</th><th>state</th><th>last heard from</th><th>clock</th><th>serves</th></tr></thead>
<tbody>${rows.map(
        (r) => html`<tr data-runner="${r.name}" data-state="${r.state}">
<td>${r.name}</td><td>${stateCell(r)}</td><td>${when(r.lastSeenAt)}</td>
<td>${r.clockOff ? html`<span class="badge" data-clock="off">${r.clockOff}</span>` : html`<span class="muted">ok</span>`}</td>
<td>${r.serves}</td></tr>`,
      )}</tbody></table>`;
