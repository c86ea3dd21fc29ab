import { describe, expect, it } from 'vitest';
import type { ApiAttempt } from './api-schemas.ts';
import { attemptPage, liveLogLines } from './attempt-page.ts';

const attempt = (over: Partial<ApiAttempt> = {}): ApiAttempt => ({
  n: 1,
  id: 'a1',
  issue: { repo: 'acme/app', number: 7, title: 'Fix it' },
  rosterEntry: 'sonnet',
  tool: 'claude',
  model: 'sonnet',
  tier: 'execution',
  branch: 'm1/7-fix-it',
  baseBranch: 'blitz/m1',
  host: null,
  startedAt: '2026-01-01T00:00:00Z',
  endedAt: '2026-01-01T00:10:00Z',
  exitCode: 0,
  outcome: 'stalled',
  nudges: 0,
  tokens: { input: 1, output: 2 },
  cost: { usd: '$0.42', microUsd: 420_000, unpriced: 0 },
  failureSummary: 'claude refused commands the worker needed',
  logExcerpt: null,
  permissionDenials: [],
  ...over,
});

describe('attempt page', () => {
  it('shows what the tool refused and the allowlist line to add, escaped', async () => {
    const page = String(
      await attemptPage({
        runId: 'r1',
        attempt: attempt({
          permissionDenials: [
            { tool: 'Bash', command: 'pytest -q <tests>', rule: 'Bash(pytest:*)' },
            { tool: 'Bash', command: '$(x)', rule: null },
          ],
        }),
      }),
    );
    expect(page).toContain('Refused by the tool');
    expect(page).toContain('<code>pytest -q &lt;tests&gt;</code>');
    expect(page).toContain('<pre id="allowlist-line">allowedTools: [&quot;Bash(pytest:*)&quot;]</pre>');
  });

  it("says how the attempt ended in words, not the outcome's name", async () => {
    const page = String(
      await attemptPage({ runId: 'r1', attempt: attempt({ outcome: 'environment_failure' }) }),
    );
    expect(page).toContain('<td id="outcome">an environment failure');
    expect(page).not.toContain('environment_failure');
  });

  it('has no such section when nothing was refused', async () => {
    expect(String(await attemptPage({ runId: 'r1', attempt: attempt() }))).not.toContain(
      'Refused by the tool',
    );
  });

  it('a running attempt polls and shows the last lines of its log, escaped; a finished one does neither', async () => {
    const lines = Array.from({ length: liveLogLines + 5 }, (_, i) => `line ${i} <b>`);
    const running = String(
      await attemptPage({
        runId: 'r1',
        attempt: attempt({ endedAt: null, outcome: null, exitCode: null }),
        log: { text: `${lines.join('\n')}\n`, truncated: false },
      }),
    );
    expect(running).toContain('<body data-poll="true">');
    expect(running).toContain('<script src="/status/assets/status.js"></script>');
    expect(running).not.toContain('mermaid.min.js');
    const tail = /<pre id="live-log" data-live-part>([\s\S]*?)<\/pre>/.exec(running)?.[1] ?? '';
    expect(tail.split('\n')).toHaveLength(liveLogLines);
    expect(tail.startsWith('line 5 &lt;b&gt;')).toBe(true);
    expect(tail.endsWith(`line ${liveLogLines + 4} &lt;b&gt;`)).toBe(true);
    const done = String(
      await attemptPage({ runId: 'r1', attempt: attempt(), log: { text: 'x\n', truncated: false } }),
    );
    expect(done).not.toContain('data-poll');
    expect(done).not.toContain('live-log');
  });
});
