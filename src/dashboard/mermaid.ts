// The run's DAG as a Mermaid flowchart: one node per issue, coloured by state with one classDef per
// state, an edge from each blocker to what it blocks. What waits on a person is not its last state:
// a skipped issue and one held for a person get classes of their own, so held (a label, an approval),
// blocked (a blocker open), skipped and needs-a-person each read apart at a glance. Node ids are
// generated (`i<number>`), labels go through mermaidText, so a title can neither break the graph nor
// close its code fence.
import { mermaidText } from './escape.ts';
import { type DashboardIssue, type DashboardIssueState, dashboardIssueStates } from './types.ts';

const stateStyle: Record<DashboardIssueState, string> = {
  blocked: 'fill:#eaeef2,stroke:#8c959f,color:#24292f',
  ready: 'fill:#ddf4ff,stroke:#54aeff,color:#0a3069',
  dispatched: 'fill:#fff8c5,stroke:#d4a72c,color:#4d2d00',
  working: 'fill:#fff8c5,stroke:#bf8700,color:#4d2d00',
  pushed: 'fill:#fbefff,stroke:#c297ff,color:#3e1f79',
  pr_open: 'fill:#fbefff,stroke:#a475f9,color:#3e1f79',
  reviewed: 'fill:#fbefff,stroke:#8250df,color:#3e1f79',
  merged: 'fill:#dafbe1,stroke:#4ac26b,color:#044f1e',
  closed: 'fill:#2da44e,stroke:#1a7f37,color:#ffffff',
  failed: 'fill:#ffebe9,stroke:#cf222e,color:#82071e',
  stalled: 'fill:#fff1e5,stroke:#bc4c00,color:#762c00',
  bounced: 'fill:#fff1e5,stroke:#fb8f44,color:#762c00',
  held: 'fill:#f6f8fa,stroke:#6e7781,color:#24292f,stroke-dasharray:4 3',
};

/** Beyond this, GitHub's Mermaid refuses or renders an unreadable hairball; the table still has it all. */
export const maxGraphNodes = 150;

const knownStates: ReadonlySet<string> = new Set(dashboardIssueStates);

/** Classes beyond the states: what a person decided (skipped) or has to decide (needs_person). */
const personStyle = {
  skipped: 'fill:#ffffff,stroke:#afb8c1,color:#6e7781,stroke-dasharray:2 2',
  needs_person: 'fill:#ffebe9,stroke:#a40e26,color:#82071e,stroke-width:3px',
} as const;

const classOf = (issue: DashboardIssue): string => {
  if (issue.skipped) return 'skipped';
  if (issue.needsPerson) return 'needs_person';
  // The state is typed, but it reaches the graph source, so an unknown one is drawn as blocked.
  return knownStates.has(issue.state) ? issue.state : 'blocked';
};

export const nodeId = (n: number): string => `i${n}`;

const validNumber = (n: number): boolean => Number.isSafeInteger(n) && n > 0;

/** The flowchart source, without the code fence; undefined when there are too many issues to draw. */
export const renderFlowchart = (issues: readonly DashboardIssue[]): string | undefined => {
  const drawn = issues.filter((i) => validNumber(i.number));
  if (drawn.length === 0 || drawn.length > maxGraphNodes) return undefined;
  const present = new Set(drawn.map((i) => i.number));
  const lines = ['flowchart LR'];
  for (const state of dashboardIssueStates) lines.push(`  classDef ${state} ${stateStyle[state]}`);
  for (const [name, style] of Object.entries(personStyle)) lines.push(`  classDef ${name} ${style}`);
  for (const issue of drawn) {
    const label = mermaidText(`#${issue.number}${issue.epic ? ' epic' : ''} ${issue.title}`);
    lines.push(`  ${nodeId(issue.number)}["${label}"]:::${classOf(issue)}`);
  }
  for (const issue of drawn) {
    for (const b of [...new Set(issue.blockedBy)].sort((x, y) => x - y)) {
      if (present.has(b) && b !== issue.number) lines.push(`  ${nodeId(b)} --> ${nodeId(issue.number)}`);
    }
  }
  return lines.join('\n');
};
