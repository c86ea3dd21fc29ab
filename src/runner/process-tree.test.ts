import { describe, expect, it } from 'vitest';
import { type ProcStat, parseStat, programName, treeActivity } from './process-tree.ts';

const p = (pid: number, ppid: number, comm: string, cpuTicks = 0): ProcStat => ({
  pid,
  ppid,
  comm,
  cpuTicks,
});

describe('parseStat', () => {
  it('reads pid, name, parent and the four CPU fields, past a name holding spaces and parentheses', () => {
    const line = '4242 (my (odd) name) S 4000 4242 4242 0 -1 4194560 100 0 0 0 7 3 11 2 20 0 1 0 5000 0 0';
    expect(parseStat(line)).toEqual({ pid: 4242, comm: 'my (odd) name', ppid: 4000, cpuTicks: 23 });
  });
  it('refuses what is not a stat line', () => {
    expect(parseStat('garbage')).toBeUndefined();
  });
});

describe('programName', () => {
  it('names an interpreter script by the script, a binary by itself', () => {
    expect(programName(['node', '/x/@openai/codex/bin/codex.js', 'exec'])).toBe('codex');
    expect(programName(['/usr/bin/node', '/x/opencode-ai/bin/opencode', 'run'])).toBe('opencode');
    expect(programName(['/x/bin/claude', '-p'])).toBe('claude');
    expect(programName(['node', '--inspect'])).toBe('node');
    expect(programName([])).toBeUndefined();
  });
});

describe('treeActivity', () => {
  const names: Record<number, string> = { 10: 'worker-wrapper', 20: 'codex', 21: 'codex', 30: 'fake-agent' };
  const nameOf = (pid: number) => names[pid];

  it('sums the CPU of the whole tree and counts no command for an agent alone', () => {
    const procs = [p(1, 0, 'init', 999), p(10, 1, 'node', 5), p(30, 10, 'node', 7), p(99, 1, 'other', 50)];
    expect(treeActivity(procs, 10, nameOf)).toEqual({ cpuMs: 120, commands: 0 });
  });

  it('walks through bubblewrap to the agent and counts what the agent started', () => {
    const procs = [
      p(10, 1, 'node'),
      p(11, 10, 'bwrap'),
      p(12, 11, 'bwrap'),
      p(30, 12, 'node'),
      p(31, 30, 'bash'),
      p(32, 31, 'sleep'),
    ];
    expect(treeActivity(procs, 10, nameOf)?.commands).toBe(2);
  });

  it('takes a launcher that starts the binary of its own name for the agent, not a command', () => {
    const procs = [p(10, 1, 'node'), p(20, 10, 'node'), p(21, 20, 'codex')];
    expect(treeActivity(procs, 10, nameOf)?.commands).toBe(0);
    expect(treeActivity([...procs, p(22, 21, 'pytest')], 10, nameOf)?.commands).toBe(1);
  });

  it('counts a child of another name under the agent as a command', () => {
    const procs = [p(10, 1, 'node'), p(30, 10, 'node'), p(31, 30, 'sleep')];
    expect(treeActivity(procs, 10, nameOf)?.commands).toBe(1);
  });

  it('is undefined when the root is gone', () => {
    expect(treeActivity([p(30, 1, 'node')], 10, nameOf)).toBeUndefined();
  });
});
