// Uncertainties relayed to a person (seed 004): the workers' UNCERTAINTIES lines grouped as decision
// buckets: activation steps (something must be switched on or set before the change works), policy
// blessings (a choice the worker made that a person should confirm), follow-ups (filed or to file)
// and recurring themes (the same subject raised by several tickets). Pure: the caller posts the text.
import { markdownText } from './escape.ts';

export type Bucket = 'activation' | 'policy' | 'follow_up';

export interface TicketUncertainties {
  /** How the ticket is named in the comment, e.g. `#9` or `acme/lib#3` (ours: written as is). */
  ticket: string;
  uncertainties: readonly string[];
  /** Follow-up issues filed for the ticket's out-of-scope bugs, named by us (`acme/app#12`). */
  followUps: readonly string[];
}

const activation =
  /\b(env(?:ironment)? var(?:iable)?s?|must (?:exist|be set|be enabled)|enable|turn on|switch on|migrat(?:e|ion)|secret|credential|token|feature flag|before (?:deploy|merg|release)|in prod(?:uction)?|activate|configure|set up)\b/i;
const followUp =
  /\b(follow[- ]?up|later|todo|out of scope|separate (?:ticket|issue|pr)|future|not (?:done|handled) here)\b/i;

/** Which bucket one uncertainty line belongs to: activation wins over follow-up, the rest are policy. */
export const bucketOf = (line: string): Bucket =>
  activation.test(line) ? 'activation' : followUp.test(line) ? 'follow_up' : 'policy';

const stop = new Set(
  'about above after again against because before being below between could doing during every from have having here into itself just more most other over same should some such than that their them then there these they this those through under until very were what when where which while will with would your ticket issue change changes whether right'.split(
    ' ',
  ),
);

const words = (line: string): Set<string> =>
  new Set(
    line
      .toLowerCase()
      .split(/[^a-z0-9_.-]+/)
      .map((w) => w.replace(/^[.-]+|[.-]+$/g, ''))
      .filter((w) => w.length >= 5 && !stop.has(w)),
  );

/** Words raised by at least two different tickets, with the tickets, most widespread first. */
export const recurringThemes = (
  tickets: readonly TicketUncertainties[],
): { word: string; tickets: string[] }[] => {
  const seen = new Map<string, Set<string>>();
  for (const t of tickets)
    for (const line of t.uncertainties)
      for (const w of words(line)) seen.set(w, (seen.get(w) ?? new Set()).add(t.ticket));
  return [...seen]
    .filter(([, ts]) => ts.size >= 2)
    .map(([word, ts]) => ({ word, tickets: [...ts].sort() }))
    .sort((a, b) => b.tickets.length - a.tickets.length || a.word.localeCompare(b.word))
    .slice(0, 5);
};

const titles: Record<Bucket, string> = {
  activation: 'Activation steps (must happen before the change works)',
  policy: 'Policy blessings (a choice the worker made; confirm or overrule)',
  follow_up: 'Follow-ups',
};

/** The decision buckets as Markdown; an empty string when there is nothing to relay. */
export const renderDecisionBuckets = (tickets: readonly TicketUncertainties[]): string => {
  const byBucket = new Map<Bucket, string[]>([
    ['activation', []],
    ['policy', []],
    ['follow_up', []],
  ]);
  for (const t of tickets) {
    for (const u of t.uncertainties)
      byBucket.get(bucketOf(u))!.push(`- ${t.ticket}: ${markdownText(u, 300)}`);
    for (const f of t.followUps) byBucket.get('follow_up')!.push(`- ${t.ticket}: filed ${f}`);
  }
  const themes = recurringThemes(tickets);
  const out: string[] = [];
  for (const [bucket, lines] of byBucket)
    if (lines.length > 0) out.push(`**${titles[bucket]}**`, ...lines, '');
  if (themes.length > 0)
    out.push(
      '**Recurring themes across tickets**',
      ...themes.map((t) => `- "${markdownText(t.word, 40)}": ${t.tickets.join(', ')}`),
      '',
    );
  return out.join('\n').trim();
};
