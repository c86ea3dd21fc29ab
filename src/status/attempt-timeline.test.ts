import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAttemptTimeline } from './attempt-timeline.ts';

const fixture = readFileSync(
  new URL('../../test/fixtures/runs/attempt-claude.jsonl', import.meta.url),
  'utf8',
);

describe('attempt timeline', () => {
  it('pairs each claude tool call with its result, in order, and keeps per-turn usage', () => {
    const t = parseAttemptTimeline(fixture);
    expect(t.toolCalls).toBe(4);
    const turns = t.steps.filter((s) => s.kind === 'turn');
    expect(turns.flatMap((s) => s.tools.map((c) => c.name))).toEqual(['Read', 'Edit', 'Bash', 'Bash']);
    const [read, , failing] = turns.flatMap((s) => s.tools);
    expect(read).toMatchObject({ input: expect.stringContaining('"file_path": "src/parse.ts"') });
    expect(read?.result).toContain("s.split(',')");
    expect(failing).toMatchObject({ isError: true, result: expect.stringContaining('1 failed') });
    expect(turns[0]).toMatchObject({
      texts: ['I will read the parser first.'],
      usage: { input: 1200, output: 40, cache: 300 },
    });
  });

  it('keeps the session, plain lines, the final response and the run totals', () => {
    const t = parseAttemptTimeline(fixture);
    expect(t.steps[0]).toEqual({ kind: 'session', model: 'claude-sonnet-4-5', sessionId: '5e55-10n' });
    expect(t.steps).toContainEqual({ kind: 'output', text: 'not json: the wrapper noted a nudge here' });
    expect(t.steps).toContainEqual(
      expect.objectContaining({
        kind: 'final',
        isError: false,
        text: expect.stringContaining('status: pushed'),
      }),
    );
    // The cut-off last line (log still being written) is shown as plain output, not dropped silently.
    expect(t.steps.at(-1)).toMatchObject({ kind: 'output' });
    expect(t.tokens).toEqual({ input: 6300, output: 210, cache: 300, cacheWrite: 0 });
  });

  it('reads codex command executions as tool calls and other text as plain output', () => {
    const log = [
      JSON.stringify({
        type: 'item.completed',
        item: { id: 'c1', type: 'command_execution', command: 'ls', aggregated_output: 'a\nb', exit_code: 0 },
      }),
      JSON.stringify({
        type: 'item.completed',
        item: { id: 'c2', type: 'command_execution', command: 'false', aggregated_output: '', exit_code: 1 },
      }),
      JSON.stringify({ type: 'item.completed', item: { type: 'agent_message', text: 'done' } }),
      JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 10, output_tokens: 2 } }),
      'plain tail',
    ].join('\n');
    const t = parseAttemptTimeline(log);
    expect(t.toolCalls).toBe(2);
    const tools = t.steps.flatMap((s) => (s.kind === 'turn' ? s.tools : []));
    expect(tools.map((c) => [c.input, c.isError ?? false])).toEqual([
      ['ls', false],
      ['false', true],
    ]);
    expect(t.steps.at(-1)).toEqual({ kind: 'output', text: 'plain tail' });
    expect(t.tokens).toEqual({ input: 10, output: 2, cache: 0, cacheWrite: 0 });
  });

  it('reads opencode tool_use and text events, with step_finish tokens', () => {
    const session = { sessionID: 'ses_dcf65567cffejexl09TOBhEdeN' };
    const log = [
      JSON.stringify({
        type: 'tool_use',
        ...session,
        part: {
          type: 'tool',
          tool: 'bash',
          callID: 'call_2',
          state: {
            status: 'completed',
            input: { command: 'git push' },
            output: 'rejected',
            metadata: { exit: 1 },
          },
        },
      }),
      JSON.stringify({
        type: 'step_finish',
        ...session,
        part: { type: 'step-finish', tokens: { input: 1000, output: 50, cache: { read: 0, write: 0 } } },
      }),
      JSON.stringify({ type: 'text', ...session, part: { type: 'text', text: 'FINAL REPORT' } }),
    ].join('\n');
    const t = parseAttemptTimeline(log);
    expect(t.toolCalls).toBe(1);
    expect(t.steps[0]).toMatchObject({
      kind: 'turn',
      tools: [
        { name: 'bash', input: expect.stringContaining('git push'), result: 'rejected', isError: true },
      ],
    });
    expect(t.steps[1]).toEqual({ kind: 'turn', texts: ['FINAL REPORT'], tools: [] });
    expect(t.tokens).toEqual({ input: 1000, output: 50, cache: 0, cacheWrite: 0 });
  });

  it('shows an empty log as no steps rather than failing', () => {
    expect(parseAttemptTimeline('')).toEqual({ steps: [], toolCalls: 0 });
  });
});
