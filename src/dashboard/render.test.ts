import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type DashboardInput,
  type DashboardIssue,
  dashboardMarker,
  maxDashboardChars,
  progressLine,
  renderDashboard,
} from './render.ts';

const issue = (
  number: number,
  state: DashboardIssue['state'],
  extra: Partial<DashboardIssue> = {},
): DashboardIssue => ({
  number,
  title: `Issue ${number}`,
  state,
  attempts: 0,
  blockedBy: [],
  ...extra,
});

const base = (issues: DashboardIssue[], extra: Partial<DashboardInput> = {}): DashboardInput => ({
  runId: 'run-42',
  milestone: 'M1 checkout',
  runState: 'running',
  wave: 2,
  issues,
  awaitingApproval: [],
  blockers: [],
  notifyFailures: [],
  ...extra,
});

const sample = (): DashboardIssue[] => [
  issue(1, 'closed', {
    rosterEntry: 'codex-medium',
    model: 'gpt-5-codex',
    prNumber: 21,
    prUrl: 'https://github.com/acme/shop/pull/21',
    attempts: 1,
    tokens: 48_200,
  }),
  issue(2, 'closed', { blockedBy: [1], attempts: 2, tokens: 950 }),
  issue(3, 'closed', { blockedBy: [2] }),
  issue(4, 'working', { blockedBy: [3], rosterEntry: 'claude-sonnet', attempts: 1 }),
  issue(5, 'pr_open', { prNumber: 25, prUrl: 'https://github.com/acme/shop/pull/25' }),
  issue(6, 'blocked', { blockedBy: [4, 5] }),
  issue(7, 'ready'),
];

/** Table rows: lines that start a row with an issue reference. */
describe('refused commands', () => {
  it('lists each issue whose tool refused commands, with the rules to add (escaped)', () => {
    const md = renderDashboard(base([issue(7, 'stalled', { refused: ['Bash(pytest:*)'], attempts: 1 })]));
    expect(md).toContain('#### Commands the agent was refused');
    expect(md).toContain("Add these to the roster entry's `allowedTools`");
    expect(md).toContain('- #7: Bash&#40;pytest&#58;&#42;&#41;');
    expect(renderDashboard(base([issue(7, 'stalled')]))).not.toContain('was refused');
  });
});

const tableRows = (md: string): string[] => md.split('\n').filter((l) => /^\| #\d/.test(l));
/** Cells of a row: split on pipes that are not escaped (escaped ones are `&#124;`). */
const cellCount = (row: string): number => row.split('|').length - 2;
const mermaidBlock = (md: string): string[] => {
  const lines = md.split('\n');
  const start = lines.indexOf('```mermaid');
  const end = lines.indexOf('```', start + 1);
  return start >= 0 && end > start ? lines.slice(start + 1, end) : [];
};
const nodeLines = (md: string): string[] => mermaidBlock(md).filter((l) => /^ {2}i\d+\[/.test(l));

describe('renderDashboard', () => {
  it('starts with the hidden marker that finds the comment again', () => {
    const md = renderDashboard(base(sample()));
    expect(md.split('\n')[0]).toBe('<!-- blitz-dashboard:run-42 -->');
    expect(md.split('\n')[0]).toBe(dashboardMarker('run-42'));
  });

  it('keeps a hostile run id from closing the marker comment', () => {
    const marker = dashboardMarker('x --> <img src=x onerror=alert(1)>');
    expect(marker).toMatch(/^<!-- blitz-dashboard:[A-Za-z0-9_.:-]+ -->$/);
    expect(marker.slice(4, -4)).not.toContain('--');
  });

  it('shows the progress line with closed, working, blocked, other states and the wave', () => {
    expect(progressLine(base(sample()))).toBe('3/7 closed · 2 working · 1 blocked · 1 ready · wave 2');
    expect(renderDashboard(base(sample()))).toContain(
      '**3/7 closed · 2 working · 1 blocked · 1 ready · wave 2**',
    );
  });

  it('draws held, blocked, skipped and needs-a-person issues each in a class of its own, not by their last state', () => {
    const issues: DashboardIssue[] = [
      { number: 1, title: 'Held', state: 'held', attempts: 0, blockedBy: [] },
      { number: 2, title: 'Blocked', state: 'blocked', attempts: 0, blockedBy: [] },
      { number: 3, title: 'Skipped', state: 'failed', skipped: true, attempts: 3, blockedBy: [] },
      { number: 4, title: 'Stalled', state: 'stalled', needsPerson: true, attempts: 1, blockedBy: [] },
      { number: 5, title: 'Failed', state: 'failed', attempts: 1, blockedBy: [] },
    ];
    const md = renderDashboard(base(issues));
    const classes = nodeLines(md).map((l) => l.slice(l.lastIndexOf(':::') + 3));
    expect(classes).toEqual(['held', 'blocked', 'skipped', 'needs_person', 'failed']);
    const defs = mermaidBlock(md).filter((l) => l.startsWith('  classDef '));
    const styleOf = (c: string) => defs.find((l) => l.startsWith(`  classDef ${c} `))?.split(' ')[4];
    const styles = ['held', 'blocked', 'skipped', 'needs_person'].map(styleOf);
    expect(styles.every((x) => x !== undefined)).toBe(true);
    expect(new Set(styles).size).toBe(4);
    expect(md).toContain('| 🙋 stalled, needs a person |');
  });

  it('shows a skipped issue as skipped, in its row and the progress line, not by its last state', () => {
    const input = base(sample());
    const failed = input.issues.findIndex((i) => i.state === 'ready');
    input.issues[failed] = { ...input.issues[failed]!, skipped: true };
    const row = tableRows(renderDashboard(input))[failed]!;
    expect(row).toContain('| ⏭️ skipped |');
    expect(row).not.toContain('ready');
    expect(progressLine(input)).toBe('3/7 closed · 2 working · 1 blocked · 1 skipped · wave 2');
  });

  it('says in its row that a /blitz tell message has not reached the session yet', () => {
    const input = base(sample());
    input.issues[0] = { ...input.issues[0]!, messagesWaiting: 2 };
    const [row, other] = tableRows(renderDashboard(input));
    expect(row).toContain(' · ✉️ 2 messages not delivered yet |');
    expect(cellCount(row!)).toBe(7);
    expect(other).not.toContain('not delivered');
  });

  it('says in its row how many times a merge conflict went back to the session that wrote the work', () => {
    const input = base(sample());
    input.issues[1] = { ...input.issues[1]!, conflictTries: 1 };
    const [other, row] = tableRows(renderDashboard(input));
    expect(row).toContain(' · 🔀 merge conflict sent back to its session (try 1 of 2) |');
    expect(cellCount(row!)).toBe(7);
    expect(other).not.toContain('merge conflict');
  });

  it('has one table row per issue, each with seven cells, entry and model, PR link, attempts and tokens', () => {
    const md = renderDashboard(base(sample()));
    const rows = tableRows(md);
    expect(rows).toHaveLength(7);
    for (const r of rows) expect(cellCount(r)).toBe(7);
    expect(rows[0]).toBe(
      '| #1 | Issue 1 | ✅ closed | codex-medium (gpt-5-codex) | [#21](https://github.com/acme/shop/pull/21) | 1 | 48k |',
    );
    expect(rows[1]).toContain('| 2 | 950 |');
  });

  it('draws one Mermaid node per issue with the class of its state, and an edge per blocker', () => {
    const md = renderDashboard(base(sample()));
    const nodes = nodeLines(md);
    expect(nodes).toHaveLength(7);
    expect(nodes).toContain('  i4["#35;4 Issue 4"]:::working');
    expect(nodes).toContain('  i5["#35;5 Issue 5"]:::pr_open');
    const block = mermaidBlock(md);
    expect(block[0]).toBe('flowchart LR');
    for (const state of ['closed', 'working', 'pr_open', 'blocked', 'ready']) {
      expect(block.some((l) => l.startsWith(`  classDef ${state} `))).toBe(true);
    }
    expect(block.filter((l) => l.includes('-->'))).toEqual([
      '  i1 --> i2',
      '  i2 --> i3',
      '  i3 --> i4',
      '  i4 --> i6',
      '  i5 --> i6',
    ]);
  });

  it('escapes a hostile 500-character title so it cannot break the table, the graph or inject HTML', () => {
    const hostile = `a|b\`\`\`\n<script>alert(1)</script> @octocat [x](javascript:alert(1)) "]]) ${'|`<'.repeat(160)}`;
    expect(hostile.length).toBeGreaterThan(500);
    const md = renderDashboard(
      base([issue(1, 'working', { title: hostile }), issue(2, 'blocked', { blockedBy: [1] })]),
    );
    const rows = tableRows(md);
    expect(rows).toHaveLength(2);
    expect(cellCount(rows[0]!)).toBe(7);
    expect(md).not.toContain('<script');
    expect(md).not.toContain('@octocat');
    expect(md).not.toContain('](javascript');
    expect(md.split('\n').filter((l) => l.startsWith('```'))).toEqual(['```mermaid', '```']);
    expect(nodeLines(md)).toHaveLength(2);
  });

  it('links a PR only when its URL is http(s)', () => {
    const md = renderDashboard(base([issue(1, 'pr_open', { prNumber: 9, prUrl: 'javascript:alert(1)' })]));
    expect(tableRows(md)[0]).toContain('| #9 |');
    expect(md).not.toContain('javascript');
  });

  it('lists issues waiting for approval, cycles and unknown blockers', () => {
    const md = renderDashboard(
      base(sample(), {
        awaitingApproval: [{ number: 8, title: 'Please run rm -rf' }],
        blockers: [
          { kind: 'cycle', issues: [9, 10] },
          { kind: 'unknown_blocker', issue: 11, blocker: 'acme/api#99' },
        ],
      }),
    );
    expect(md).toContain('#### Waiting for approval');
    expect(md).toContain('- #8 Please run rm -rf');
    expect(md).toContain('`blitz/approved`');
    expect(md).toContain('- Cycle #9 → #10 → #9: not run until one blocked-by link is removed.');
    expect(md).toContain('- #11 is blocked by acme/api&#35;99, which cannot be read');
  });

  it('says how the budget was decided: the probe, no probe, or a failed probe', () => {
    const ok = renderDashboard(
      base([], { budget: { status: 'ok', recommendedMaxSessions: 1, preferMedium: true, park: true } }),
    );
    expect(ok).toContain(
      'Budget probe: up to 1 session · prefer medium models · **parked**: no new workers.',
    );
    const absent = renderDashboard(base([], { budget: { status: 'absent' } }));
    expect(absent).toContain('Budget probe: none configured; usage is unknown, so one worker at a time.');
    const failed = renderDashboard(base([], { budget: { status: 'failed', error: 'exit 2: <boom>' } }));
    expect(failed).toContain(
      'Budget probe failed (exit 2&#58; &#60;boom&#62;); one worker at a time until it answers.',
    );
  });

  it('shows notify failures, unmet readiness and the ship result', () => {
    const md = renderDashboard(
      base(sample(), {
        notifyFailures: [{ target: 'home-assistant', error: 'http://ha.lan answered HTTP 401' }],
        readinessUnmet: ['smoke is red: exit 1'],
        ship: {
          path: 'local',
          url: 'http://192.168.1.20:5173',
          reasons: ['the milestone is marked "spike"'],
        },
      }),
    );
    expect(md).toContain('- home-assistant: http&#58;//ha.lan answered HTTP 401');
    expect(md).toContain('- smoke is red&#58; exit 1');
    expect(md).toContain('**Shipped: local preview** · [open the preview](http://192.168.1.20:5173/)');
  });

  it('stays under the comment size limit for a huge milestone, keeping the marker', () => {
    const issues = Array.from({ length: 600 }, (_, i) => issue(i + 1, 'ready', { title: '|<`@'.repeat(30) }));
    const md = renderDashboard(base(issues));
    expect(md.length).toBeLessThanOrEqual(maxDashboardChars);
    expect(md.split('\n')[0]).toBe(dashboardMarker('run-42'));
    expect(md).toMatch(/…and \d+ more issues not shown\./);
    expect(mermaidBlock(md)).toEqual([]);
  });
});

describe('renderDashboard with arbitrary titles (property)', () => {
  const hostilePiece = fc.constantFrom(
    '|',
    '`',
    '```',
    '"',
    ']',
    '[',
    ')',
    '(',
    '<script>',
    '\n',
    '\r\n',
    '\u2028',
    '-->',
    '\\',
    '@all',
    '#quot;',
    '\u202e',
    '<!--',
  );
  const title = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 600 }),
    fc.array(fc.oneof(hostilePiece, fc.string({ maxLength: 5 })), { maxLength: 80 }).map((a) => a.join('')),
  );

  it('never breaks a table row, a node line or the mermaid fence, and never lets HTML through', () => {
    fc.assert(
      fc.property(fc.array(title, { minLength: 1, maxLength: 6 }), (titles) => {
        const issues = titles.map((t, i) =>
          issue(i + 1, i % 2 ? 'closed' : 'working', { title: t, rosterEntry: t, blockedBy: i ? [i] : [] }),
        );
        const md = renderDashboard(
          base(issues, { milestone: titles[0]!, awaitingApproval: [{ number: 99, title: titles[0]! }] }),
        );
        const rows = tableRows(md);
        expect(rows).toHaveLength(issues.length);
        rows.forEach((r, i) => {
          expect(r.startsWith(`| #${i + 1} | `)).toBe(true);
          expect(cellCount(r)).toBe(7);
        });
        expect(md.split('\n').filter((l) => l.startsWith('```'))).toEqual(['```mermaid', '```']);
        const nodes = nodeLines(md);
        expect(nodes).toHaveLength(issues.length);
        for (const n of nodes) expect(n).toMatch(/^ {2}i\d+\["[A-Za-z0-9 .,_#;-]*"\]:::(working|closed)$/);
        const withoutOwnTags = md
          .replace(/^<!-- blitz-dashboard:[A-Za-z0-9_.:-]+ -->\n/, '')
          .replace(/<\/?(details|summary)>/g, '');
        expect(withoutOwnTags).not.toContain('<');
        expect(withoutOwnTags).not.toMatch(/@\w/);
      }),
      { numRuns: 200 },
    );
  });
});
