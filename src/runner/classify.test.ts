import { describe, expect, it } from 'vitest';
import { classifyExit, environmentProblem } from './failure-class.ts';
import { machineLimit } from './machine.ts';
import { stallCheck } from './stall.ts';

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
    });
    expect(environmentProblem('Error: 529 {"type":"overloaded_error"}')).toBe('model endpoint overloaded');
    expect(environmentProblem('write failed: ENOSPC')).toBe('disk full');
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
