// The fleet scoreboard (seed 004): one sticky comment on the triggering issue, edited in place. Per
// wave a row per ticket: PR, tests, review verdict, status; the skipped tickets with their reasons;
// and once the run ends a consolidated summary (totals, blocking findings caught, decision buckets,
// what is waiting for a person). Pure: the orchestrator's coalescer publishes the text.
import { markdownText } from './escape.ts';
import { slowedLine } from './render.ts';
import { renderDecisionBuckets, type TicketUncertainties } from './uncertainties.ts';

export interface ScoreboardRow {
  /** `#9` or `acme/lib#3` (ours). */
  ticket: string;
  title: string;
  pr?: string;
  /** The worker's TESTS line, or why there is none. */
  tests?: string;
  /** The review leg's verdict (`clean`, `minor`, `blocking`, …). */
  review?: string;
  /** The words a person reads. */
  status: string;
  /** What the summary counts the ticket as, typed: never read off `status`'s words. */
  standing: 'merged' | 'waiting' | 'failed' | 'other';
}

export interface ScoreboardInput {
  runState: string;
  /** Ordered: the pilot first, then wave 1, 2… */
  waves: { label: string; rows: ScoreboardRow[] }[];
  /** Tickets that were never started: not dispatched yet, in order. */
  queued: ScoreboardRow[];
  skipped: { ticket: string; reason: string }[];
  relays: TicketUncertainties[];
  /** Set when the run has ended: the consolidated summary is shown. */
  final?: { reason: string };
  /** Why the run goes slower than it could: the forge's rate limit is close (run-pace.ts). */
  slowed?: string;
}

const cell = (s: string | undefined, max = 60): string => (s ? markdownText(s, max) : '—');

const table = (rows: ScoreboardRow[]): string[] => [
  '| ticket | PR | tests | review | status |',
  '|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.ticket} ${cell(r.title, 50)} | ${r.pr ?? '—'} | ${cell(r.tests)} | ${cell(r.review, 20)} | ${cell(r.status, 120)} |`,
  ),
];

const summary = (input: ScoreboardInput, reason: string): string[] => {
  const rows = input.waves.flatMap((w) => w.rows);
  const count = (p: (r: ScoreboardRow) => boolean) => rows.filter(p).length;
  const merged = count((r) => r.standing === 'merged');
  const waiting = rows.filter((r) => r.standing === 'waiting');
  const blocking = count((r) => r.review === 'blocking');
  return [
    '### Summary',
    `${markdownText(reason, 200)}`,
    '',
    `- tickets: ${rows.length} run, ${merged} merged, ${count((r) => r.standing === 'failed')} failed, ${input.skipped.length} skipped`,
    `- review legs with blocking findings: ${blocking}`,
    `- waiting for a person: ${waiting.length ? waiting.map((r) => `${r.ticket} (${r.pr ?? 'no PR'})`).join(', ') : 'nothing'}`,
  ];
};

export const renderScoreboard = (input: ScoreboardInput): string => {
  const out: string[] = [`## Ticket fleet — ${markdownText(input.runState, 20)}`, ''];
  for (const w of input.waves) {
    if (w.rows.length === 0) continue;
    out.push(`**${w.label}**`, '', ...table(w.rows), '');
  }
  if (input.queued.length > 0) out.push('**Queued**', '', ...table(input.queued), '');
  if (input.skipped.length > 0)
    out.push('**Skipped**', ...input.skipped.map((s) => `- ${s.ticket}: ${markdownText(s.reason, 200)}`), '');
  const buckets = renderDecisionBuckets(input.relays);
  if (buckets) out.push('### Uncertainties', '', buckets, '');
  if (input.slowed) out.push(slowedLine(input.slowed), '');
  if (input.final) out.push(...summary(input, input.final.reason), '');
  out.push('Merging needs a person: `/merge` on the PR, or `/ticket-fleet merge #PR` here.');
  return out.join('\n');
};
