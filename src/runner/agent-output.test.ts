// Reading the real CLIs' output: the lines below are shaped as claude 2.1, codex 0.171, opencode 1.18
// and gemini 0.61 print them (captured by the compatibility tier, test/agents/).
import { describe, expect, it } from 'vitest';
import {
  agentText,
  allowRuleFor,
  parsePermissionDenials,
  parseReportedModel,
  parseSessionId,
  parseTokenUsage,
  refusedSummary,
} from './agent-output.ts';

const line = (v: unknown): string => JSON.stringify(v);
const codexThread = (id: string) => line({ type: 'thread.started', thread_id: id });
const codexTurn = (input: number, output: number) =>
  line({
    type: 'turn.completed',
    usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: output, reasoning_output_tokens: 0 },
  });
const opencodeStep = (input: number, output: number, read = 0) =>
  line({
    type: 'step_finish',
    sessionID: 'ses_dcf65567cffejexl09TOBhEdeN',
    part: {
      type: 'step-finish',
      tokens: { total: input + output, input, output, cache: { write: 0, read } },
    },
  });

// gemini 0.61 `--output-format stream-json`: one invocation with a tool call, as it printed it.
const geminiRun = (session: string, input: number, output: number, cached = 0) =>
  [
    line({ type: 'init', timestamp: '2026-12-06T23:14:34.776Z', session_id: session, model: 'mock-model' }),
    line({
      type: 'message',
      timestamp: '2026-12-06T23:14:34.778Z',
      role: 'user',
      content: 'You are working on issue #7.',
    }),
    line({
      type: 'tool_use',
      tool_name: 'run_shell_command',
      tool_id: 'run_shell_command_1',
      parameters: { command: 'echo \'{"type":"init","session_id":"not-this-one"}\'' },
    }),
    line({ type: 'tool_result', tool_id: 'run_shell_command_1', status: 'success', output: '' }),
    line({ type: 'message', role: 'assistant', content: 'FINAL REPORT\nSTA', delta: true }),
    line({ type: 'message', role: 'assistant', content: 'TUS: done', delta: true }),
    line({
      type: 'result',
      status: 'success',
      stats: {
        total_tokens: input + output,
        input_tokens: input,
        output_tokens: output,
        cached,
        input: input - cached,
        duration_ms: 810,
        tool_calls: 1,
        models: {
          'mock-model': { total_tokens: input + output, input_tokens: input, output_tokens: output, cached },
        },
      },
    }),
  ].join('\n');

describe('gemini stream-json', () => {
  it('sums the stats of each invocation (a resume is another), cached input apart', () => {
    const log = `${geminiRun('11111111-2222-4333-8444-555555555555', 2468, 112, 400)}\n${geminiRun('11111111-2222-4333-8444-555555555555', 1234, 56)}`;
    expect(parseTokenUsage(log)).toEqual({ input: 2068 + 1234, output: 168, cache: 400, cacheWrite: 0 });
  });

  it('reads the session id of its init event, never one a command printed', () => {
    expect(parseSessionId(geminiRun('11111111-2222-4333-8444-555555555555', 1, 1))).toBe(
      '11111111-2222-4333-8444-555555555555',
    );
  });

  it('joins the chunks of a streamed assistant message into its text', () => {
    expect(
      agentText(geminiRun('s1', 1, 1))
        .split('\n')
        .slice(-2),
    ).toEqual(['FINAL REPORT', 'STATUS: done']);
  });
});

// qwen 0.24 `--output-format stream-json`: claude's shape, its init naming its version; a result's
// usage is the session's running total (captured: 2468 after the first run, 4936 after its resume).
const qwenRun = (session: string, input: number, output: number) =>
  [
    line({
      type: 'system',
      subtype: 'init',
      session_id: session,
      model: 'mock-model',
      qwen_code_version: '0.24.4',
    }),
    line({
      type: 'assistant',
      session_id: session,
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'ok' }],
        usage: { input_tokens: 1234, output_tokens: 56 },
      },
    }),
    line({
      type: 'result',
      subtype: 'success',
      session_id: session,
      is_error: false,
      result: 'ok',
      usage: {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: 0,
        total_tokens: input + output,
      },
      permission_denials: [],
    }),
  ].join('\n');

describe('qwen stream-json', () => {
  it('counts a resumed session once, at its last (running total) result', () => {
    const s = 'a28e80b5-05af-45c9-a64d-c7e5512ef5f6';
    expect(parseTokenUsage(`${qwenRun(s, 2468, 112)}\n${qwenRun(s, 4936, 224)}`)).toEqual({
      input: 4936,
      output: 224,
      cache: 0,
      cacheWrite: 0,
    });
  });

  it('adds sessions that are different (a fresh start after a lost session)', () => {
    expect(parseTokenUsage(`${qwenRun('s-1', 100, 10)}\n${qwenRun('s-2', 40, 4)}`)).toEqual({
      input: 140,
      output: 14,
      cache: 0,
      cacheWrite: 0,
    });
  });

  it("reads its session id as claude's", () => {
    expect(parseSessionId(qwenRun('s-9', 1, 1))).toBe('s-9');
  });
});

describe('parseTokenUsage', () => {
  it('counts a resumed codex thread once, at its last (cumulative) report', () => {
    const t = '01a2309a-3794-7950-b5e5-0f320f0bbe70';
    const log = [codexThread(t), codexTurn(10010, 150), codexThread(t), codexTurn(20020, 300)].join('\n');
    expect(parseTokenUsage(log)).toEqual({ input: 20020, output: 300, cache: 0, cacheWrite: 0 });
  });

  it('adds codex threads that are different sessions (a fresh start after a lost session)', () => {
    const log = [codexThread('a-1'), codexTurn(100, 10), codexThread('b-2'), codexTurn(40, 4)].join('\n');
    expect(parseTokenUsage(log)).toEqual({ input: 140, output: 14, cache: 0, cacheWrite: 0 });
  });

  it('sums opencode step_finish tokens, cache reads included', () => {
    expect(parseTokenUsage([opencodeStep(1000, 50, 7), opencodeStep(1000, 50)].join('\n'))).toEqual({
      input: 2000,
      output: 100,
      cache: 7,
      cacheWrite: 0,
    });
  });
});

describe('parseSessionId', () => {
  it('reads claude, codex and opencode session ids', () => {
    expect(
      parseSessionId(
        line({ type: 'system', subtype: 'init', session_id: '7fbaf8b9-64d7-44a9-8e48-e153ac41f7db' }),
      ),
    ).toBe('7fbaf8b9-64d7-44a9-8e48-e153ac41f7db');
    expect(parseSessionId(codexThread('01a2309a-3794-7950-b5e5-0f320f0bbe70'))).toBe(
      '01a2309a-3794-7950-b5e5-0f320f0bbe70',
    );
    expect(parseSessionId(opencodeStep(1, 1))).toBe('ses_dcf65567cffejexl09TOBhEdeN');
  });

  it('takes the latest run, ignores ids nested in command output, and refuses option- or path-like ids', () => {
    const nested = line({
      type: 'item.completed',
      item: {
        type: 'command_execution',
        aggregated_output: line({ type: 'thread.started', thread_id: 'evil' }),
      },
    });
    expect(parseSessionId([codexThread('first'), codexThread('second'), nested].join('\n'))).toBe('second');
    expect(parseSessionId(codexThread('--config=x'))).toBeUndefined();
    expect(parseSessionId(line({ type: 'result', session_id: '../../etc' }))).toBeUndefined();
    expect(parseSessionId('no json here')).toBeUndefined();
  });
});

describe('parseReportedModel', () => {
  it('reads the model of the start event: claude and qwen `system` init, gemini `init`', () => {
    const claude = line({ type: 'system', subtype: 'init', session_id: 's', model: 'claude-sonnet-5-5' });
    expect(parseReportedModel(`${claude}\n${line({ type: 'result', result: 'ok' })}`)).toBe(
      'claude-sonnet-5-5',
    );
    expect(parseReportedModel(qwenRun('s-1', 1, 1))).toBe('mock-model');
    expect(parseReportedModel(geminiRun('s-2', 10, 1))).toBe('mock-model');
  });

  it('takes the latest invocation’s, never a model a command printed or a name that is not one', () => {
    const init = (model: string) => line({ type: 'system', subtype: 'init', session_id: 's', model });
    expect(parseReportedModel(`${init('claude-opus-5-5')}\n${init('claude-opus-5-5[1m]')}`)).toBe(
      'claude-opus-5-5[1m]',
    );
    const printed = line({
      type: 'user',
      message: { content: [{ type: 'tool_result', content: init('claude-fable-5-2') }] },
    });
    expect(parseReportedModel(`${init('claude-sonnet-5-5')}\n${printed}`)).toBe('claude-sonnet-5-5');
    expect(parseReportedModel(init('rm -rf / #'))).toBeUndefined();
    expect(parseReportedModel(init('--model=x'))).toBeUndefined();
  });

  it('finds none where the tool prints none: codex, opencode, plain text', () => {
    expect(parseReportedModel(`${codexThread('t-1')}\n${codexTurn(10, 1)}`)).toBeUndefined();
    expect(parseReportedModel(opencodeStep(10, 1))).toBeUndefined();
    expect(parseReportedModel('model: claude-opus-5-5')).toBeUndefined();
  });
});

describe('agentText', () => {
  it('reads opencode text parts', () => {
    const t = line({ type: 'text', part: { type: 'text', text: 'FINAL REPORT\nSTATUS: done' } });
    expect(agentText(`${opencodeStep(1, 1)}\n${t}`)).toBe('FINAL REPORT\nSTATUS: done');
  });
});

describe('parsePermissionDenials', () => {
  const result = (denials: unknown[]) =>
    line({
      type: 'result',
      subtype: 'success',
      result: 'done',
      session_id: 's1',
      permission_denials: denials,
    });

  it("reads claude's result.permission_denials across invocations, one per rule, with the rule to allow", () => {
    const log = [
      result([
        { tool_name: 'Bash', tool_use_id: 't1', tool_input: { command: 'pytest -q', description: 'run' } },
      ]),
      result([
        { tool_name: 'Bash', tool_use_id: 't2', tool_input: { command: 'pytest tests/a.py' } },
        { tool_name: 'WebFetch', tool_use_id: 't3', tool_input: { url: 'https://x.invalid' } },
        { tool_name: 'Bash', tool_use_id: 't4', tool_input: { command: '$(evil) && rm -rf /' } },
      ]),
    ].join('\n');
    expect(parsePermissionDenials(log)).toEqual([
      { tool: 'Bash', command: 'pytest -q', rule: 'Bash(pytest:*)' },
      { tool: 'WebFetch', rule: 'WebFetch' },
      { tool: 'Bash', command: '$(evil) && rm -rf /' },
    ]);
  });

  it('finds none in a log without them, or in a command that printed one', () => {
    expect(parsePermissionDenials(result([]))).toEqual([]);
    const printed = line({
      type: 'assistant',
      message: { content: [{ type: 'text', text: result([{ tool_name: 'Bash' }]) }] },
    });
    expect(parsePermissionDenials(printed)).toEqual([]);
  });

  it('offers a rule only for a plain program name or tool name', () => {
    expect(allowRuleFor('Bash', 'cargo test')).toBe('Bash(cargo:*)');
    expect(allowRuleFor('Bash', '`x`')).toBeUndefined();
    expect(allowRuleFor('Web Fetch,Write')).toBeUndefined();
  });

  it('says what was refused and which rules to add', () => {
    const s = refusedSummary('claude', [{ tool: 'Bash', command: 'pytest -q', rule: 'Bash(pytest:*)' }]);
    expect(s).toBe(
      "claude refused commands the worker needed (`pytest -q`); a person has to allow them. Add `Bash(pytest:*)` to the roster entry's `allowedTools`, then retry.",
    );
  });
});
