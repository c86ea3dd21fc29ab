import { describe, expect, it } from 'vitest';
import { classifyExit, environmentCause, liveEnvironmentCause } from './failure-class.ts';
import { machineLimit } from './machine.ts';
import { BUSY_CPU_MS, stallCheck } from './stall.ts';

const codexDown =
  '{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}';
const claudeRetry = (attempt: number, status: number | null = null) =>
  JSON.stringify({
    type: 'system',
    subtype: 'api_retry',
    attempt,
    max_retries: 10,
    error_status: status,
    error: 'unknown',
  });
const opencodeDown =
  'timestamp=2026-12-01T08:01:56.710Z level=ERROR run=fa9e8364 message="stream error" providerID=mock error.error="AI_APICallError: Cannot connect to API: Unable to connect."';

// gemini 0.61 with its endpoint refusing connections: one line per failed call, then its stack.
const geminiDown = (attempt: number) =>
  [
    `Attempt ${attempt} failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request`,
    '    at file:///opt/gemini-cli/bundle/chunk-JDPZ4CE3.js:267671:13',
    '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
    '    at async retryWithBackoff (file:///opt/gemini-cli/bundle/chunk-JDPZ4CE3.js:308039:23)',
  ].join('\n');

describe('gemini outages', () => {
  const init = '{"type":"init","session_id":"11111111-2222-4333-8444-555555555555","model":"m"}';
  it('are seen live once its retries of a failed fetch repeat, stacks and all', () => {
    expect(liveEnvironmentCause([init, geminiDown(1), geminiDown(2)].join('\n'))).toBeUndefined();
    expect(liveEnvironmentCause([init, geminiDown(1), geminiDown(2), geminiDown(3)].join('\n'))).toBe(
      'endpoint_unreachable',
    );
    const answered = '{"type":"message","role":"assistant","content":"working","delta":true}';
    expect(
      liveEnvironmentCause([geminiDown(1), geminiDown(2), geminiDown(3), answered].join('\n')),
    ).toBeUndefined();
  });

  it('end an exited attempt as an environment failure, not charged to the issue', () => {
    const c = classifyExit({
      exitCode: 1,
      branchMoved: false,
      logTail: [init, geminiDown(1), geminiDown(2), 'Error when talking to Gemini API'].join('\n'),
    });
    expect(c).toMatchObject({
      outcome: 'environment_failure',
      summary: 'Environment failure: model endpoint unreachable.',
    });
  });
});

// gemini 0.61 against an account out of quota (captured from the real CLI): a retry line naming the
// provider's words, the error's stack, then the fields Node prints after it.
const geminiLimit = (attempt: number) =>
  [
    `Attempt ${attempt} failed with status 429. Retrying with backoff... _ApiError: {"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.","status":"RESOURCE_EXHAUSTED"}}`,
    '    at throwErrorIfNotOK (file:///opt/gemini-cli/bundle/chunk-JDPZ4CE3.js:267833:24)',
    '    at async retryWithBackoff (file:///opt/gemini-cli/bundle/chunk-JDPZ4CE3.js:308039:23)',
    '    at async Turn.run (file:///opt/gemini-cli/bundle/chunk-JDPZ4CE3.js:333001:24) {',
    '  status: 429',
    '}',
  ].join('\n');

// qwen 0.24 (captured): its call retries are quiet; each retry of the turn prints a `system` `retry`
// event on stdout and one line on stderr.
const qwenRetryEvent = (attempt: number) =>
  JSON.stringify({
    type: 'system',
    subtype: 'retry',
    session_id: 's-1',
    data: { reason: 'retry', attempt, maxRetries: 10, delayMs: 60000 * attempt },
  });
const qwenRetry = (attempt: number, error: string) =>
  [
    qwenRetryEvent(attempt),
    `Retrying in ${60 * attempt}s (attempt ${attempt}/10): [API Error: ${error}]`,
    JSON.stringify({ type: 'system', subtype: 'retry', session_id: 's-1', data: { reason: 'retry' } }),
    'Retrying provider attempt (0 buffered tool call(s) discarded).',
  ].join('\n');

describe('gemini and qwen limits and outages', () => {
  it("see a spent quota at gemini's first retry, its stack and fields after it", () => {
    const init = '{"type":"init","session_id":"11111111-2222-4333-8444-555555555555","model":"m"}';
    expect(liveEnvironmentCause([init, geminiLimit(1)].join('\n'))).toBe('provider_limit');
    expect(
      liveEnvironmentCause(
        [init, geminiLimit(1), "[STARTUP] Cannot measure phase 'cleanup_ops'", geminiLimit(2)].join('\n'),
      ),
    ).toBe('provider_limit');
  });

  it("see a spent quota at qwen's first retry line, and an outage once its retries repeat", () => {
    const init = '{"type":"system","subtype":"init","session_id":"s-1","qwen_code_version":"0.24.4"}';
    const limit = '429 You exceeded your current quota, please check your plan and billing details.';
    expect(liveEnvironmentCause([init, qwenRetry(1, limit)].join('\n'))).toBe('provider_limit');
    const down = 'Connection error. (cause: fetch failed)';
    expect(liveEnvironmentCause([init, qwenRetry(1, down), qwenRetry(2, down)].join('\n'))).toBeUndefined();
    expect(
      liveEnvironmentCause([init, qwenRetry(1, down), qwenRetry(2, down), qwenRetry(3, down)].join('\n')),
    ).toBe('endpoint_unreachable');
    const answered = JSON.stringify({ type: 'assistant', session_id: 's-1', message: { content: [] } });
    expect(liveEnvironmentCause([init, qwenRetry(1, limit), answered].join('\n'))).toBeUndefined();
  });
});

describe('liveEnvironmentCause', () => {
  it('sees codex reconnecting, claude retrying and opencode failing to connect, once they repeat', () => {
    const start = '{"type":"thread.started","thread_id":"t-1"}\n{"type":"turn.started"}';
    expect(liveEnvironmentCause(`${start}\n${codexDown}\n${codexDown}`)).toBeUndefined();
    expect(liveEnvironmentCause(`${start}\n${codexDown}\n${codexDown}\n${codexDown}\n`)).toBe(
      'endpoint_unreachable',
    );
    expect(liveEnvironmentCause([1, 2, 3, 4].map((a) => claudeRetry(a)).join('\n'))).toBeUndefined();
    expect(liveEnvironmentCause([1, 2, 3, 4, 5].map((a) => claudeRetry(a)).join('\n'))).toBe(
      'endpoint_unreachable',
    );
    expect(liveEnvironmentCause([opencodeDown, opencodeDown, opencodeDown].join('\n'))).toBe(
      'endpoint_unreachable',
    );
  });

  it('names what claude kept retrying on: a rate limit, an overload, or no answer at all', () => {
    const retries = (status: number | null) => [1, 2, 3, 4, 5].map((a) => claudeRetry(a, status)).join('\n');
    expect(liveEnvironmentCause(retries(429))).toBe('provider_limit');
    expect(liveEnvironmentCause(retries(529))).toBe('endpoint_overloaded');
    expect(liveEnvironmentCause(retries(null))).toBe('endpoint_unreachable');
  });

  it('lets a worker that got an answer after retrying go on', () => {
    const answered = '{"type":"item.completed","item":{"type":"agent_message","text":"working"}}';
    expect(liveEnvironmentCause([codexDown, codexDown, codexDown, answered].join('\n'))).toBeUndefined();
  });

  it("ends at once on a spend limit, and never on the same words in a command's output", () => {
    expect(
      liveEnvironmentCause(
        '{"type":"error","message":"You\'ve hit your usage limit. Try again at 3:00 PM."}',
      ),
    ).toBe('provider_limit');
    const inOutput = JSON.stringify({
      type: 'item.completed',
      item: { type: 'command_execution', aggregated_output: `${codexDown.repeat(3)} usage limit reached` },
    });
    expect(liveEnvironmentCause(inOutput)).toBeUndefined();
    expect(
      liveEnvironmentCause(
        'timestamp=2026-12-01T08:01:56.710Z level=ERROR message="stream error" error.error="AI_APICallError: You exceeded your current quota"',
      ),
    ).toBe('provider_limit');
    expect(
      liveEnvironmentCause(`${codexDown}\n${codexDown}\nplain test output ECONNREFUSED`),
    ).toBeUndefined();
  });
});

describe('classifyExit', () => {
  it('is solved only when the process exited 0 and the branch moved on origin', () => {
    expect(classifyExit({ exitCode: 0, branchMoved: true, logTail: '' }).outcome).toBe('solved');
    expect(classifyExit({ exitCode: 0, branchMoved: false, logTail: 'all done!' }).outcome).toBe('unsolved');
    expect(classifyExit({ exitCode: 2, branchMoved: true, logTail: '' }).outcome).toBe('unsolved');
  });

  it('calls an outage an environment failure', () => {
    const r = classifyExit({
      exitCode: 1,
      branchMoved: false,
      logTail: 'working\nAPI Error: Connection refused\n',
    });
    expect(r).toEqual({
      outcome: 'environment_failure',
      summary: 'Environment failure: model endpoint unreachable.',
      cause: { kind: 'environment', cause: 'endpoint_unreachable' },
    });
    expect(environmentCause('Error: 529 {"type":"overloaded_error"}')).toBe('endpoint_overloaded');
    expect(environmentCause('write failed: ENOSPC')).toBe('disk_full');
    expect(
      environmentCause(
        '{"type":"error","error":{"data":{"message":"Cannot connect to API: Unable to connect."}}}',
      ),
    ).toBe('endpoint_unreachable');
    expect(environmentCause('Credit balance is too low')).toBe('provider_limit');
    // codex 0.171 on an OpenAI `insufficient_quota` answer:
    expect(
      environmentCause(
        '{"type":"turn.failed","error":{"message":"Quota exceeded. Check your plan and billing details."}}',
      ),
    ).toBe('provider_limit');
  });

  it('does not call a task error an environment failure', () => {
    expect(
      classifyExit({ exitCode: 1, branchMoved: false, logTail: 'API Error: 400 invalid model' }).outcome,
    ).toBe('unsolved');
    expect(
      classifyExit({ exitCode: 1, branchMoved: false, logTail: 'AssertionError: expected 1' }).outcome,
    ).toBe('unsolved');
  });

  it('puts cancelled, spawn errors and timeouts in their classes', () => {
    expect(classifyExit({ exitCode: 0, branchMoved: true, logTail: '', cancelled: true }).outcome).toBe(
      'cancelled',
    );
    expect(
      classifyExit({ exitCode: 127, branchMoved: false, logTail: '', spawnError: 'ENOENT' }).outcome,
    ).toBe('environment_failure');
    expect(
      classifyExit({ exitCode: undefined, branchMoved: false, logTail: '', timedOut: true }).summary,
    ).toMatch(/Timed out/);
  });
});

describe('stallCheck', () => {
  const obs = { logSize: 10, head: 'a', remote: null };
  it('needs two consecutive identical checks', () => {
    const first = stallCheck({}, obs);
    expect(first.stalled).toBe(false);
    expect(stallCheck(first.state, { ...obs }).stalled).toBe(true);
  });
  it('is not stalled when the log grew or a commit landed', () => {
    const s = stallCheck({}, obs).state;
    expect(stallCheck(s, { ...obs, logSize: 11 }).stalled).toBe(false);
    expect(stallCheck(s, { ...obs, head: 'b' }).stalled).toBe(false);
    expect(stallCheck(s, { ...obs, remote: 'a' }).stalled).toBe(false);
  });
  it('is not stalled while a command runs or the tree used CPU since the last check', () => {
    const s = stallCheck({}, { ...obs, cpuMs: 5000, commands: 0 }).state;
    expect(stallCheck(s, { ...obs, cpuMs: 5000, commands: 1 }).stalled).toBe(false);
    expect(stallCheck(s, { ...obs, cpuMs: 5000 + BUSY_CPU_MS, commands: 0 }).stalled).toBe(false);
    expect(stallCheck(s, { ...obs, cpuMs: 5000 + BUSY_CPU_MS - 1, commands: 0 }).stalled).toBe(true);
    // A record from before CPU was observed compares on progress alone.
    expect(stallCheck({ last: obs }, { ...obs, cpuMs: 9000, commands: 0 }).stalled).toBe(true);
  });
});

describe('machineLimit', () => {
  const roomy = { loadAvg1: 0.5, cores: 4, freeMemBytes: 8 * 1024 ** 3, totalMemBytes: 16 * 1024 ** 3 };
  it('allows maxSessions on an idle host', () => {
    expect(machineLimit(roomy, 3)).toEqual({ limit: 3, contended: false, reason: 'not contended' });
  });
  it('takes one session when load reaches the core count', () => {
    const r = machineLimit({ ...roomy, loadAvg1: 3.8 }, 3);
    expect(r.limit).toBe(1);
    expect(r.reason).toContain('load 3.80 on 4 cores');
  });
  it('takes one session when memory is short', () => {
    expect(machineLimit({ ...roomy, freeMemBytes: 1024 ** 3 }, 3)).toMatchObject({
      limit: 1,
      contended: true,
    });
  });
});

describe('the cause of a missing agent CLI', () => {
  it('is the wrapper’s spawn error, typed, and nothing a worker printed', () => {
    const spawned = classifyExit({ exitCode: 127, branchMoved: false, logTail: '', spawnError: 'ENOENT' });
    expect(spawned).toEqual({
      outcome: 'environment_failure',
      summary: 'Agent binary missing or not runnable (ENOENT).',
      cause: { kind: 'missing_tool' },
    });
    // A tool the agent itself ran, missing: the worker's own business, not a blocked run.
    const worker = classifyExit({
      exitCode: 1,
      branchMoved: false,
      logTail: 'bash: pnpm: command not found',
    });
    // …and no environment failure either: it is charged like any failure, so three of them hold the
    // issue and ask a person, instead of a dispatch every pass that nobody is charged for.
    expect(worker.outcome).toBe('unsolved');
    expect(worker.cause).toBeUndefined();
    // The wrapper saying it could not start, in the log: an environment failure that parks.
    const gone = classifyExit({
      exitCode: 1,
      branchMoved: false,
      logTail: 'blitz-runner: could not start x',
    });
    expect(gone.cause).toEqual({ kind: 'environment', cause: 'tool_missing' });
  });
});
