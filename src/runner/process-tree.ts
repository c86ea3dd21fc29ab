// What a worker's process tree is doing, read from /proc: the CPU it used and whether the agent has a
// command of its own running. The stall check reads it (a quiet `pytest` or `cargo build` is busy, not
// stalled). The tree is walked from the pid the runner recorded (the exit-recording wrapper, or a
// sandbox around the worker) down through every descendant, so a sandbox's own processes in between
// (bubblewrap's monitor and its pid-namespace init) do not hide the agent or its commands.
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** One process as /proc/<pid>/stat describes it. */
export interface ProcStat {
  pid: number;
  /** The command name (`comm`, at most 15 bytes). */
  comm: string;
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks: its own CPU and that of children it reaped. */
  cpuTicks: number;
}

/** Clock ticks per second of /proc's CPU fields (USER_HZ: 100 on every Linux the runner supports). */
const TICKS_PER_SECOND = 100;

/** Parses one /proc/<pid>/stat line; undefined when it is not one. */
export const parseStat = (line: string): ProcStat | undefined => {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(line.slice(0, open).trim());
  // The command name is in parentheses and may hold spaces or ')': count fields after the last ')'.
  const f = line.slice(close + 2).split(' ');
  const ppid = Number(f[1]);
  const cpu = [f[11], f[12], f[13], f[14]].map(Number);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || cpu.some((n) => !Number.isFinite(n)))
    return undefined;
  return { pid, comm: line.slice(open + 1, close), ppid, cpuTicks: cpu.reduce((a, b) => a + b, 0) };
};

/** What a stall check needs of a worker's tree. */
export interface TreeActivity {
  /** CPU time the whole tree used so far (its live processes and the children they reaped). */
  cpuMs: number;
  /** Processes the agent itself started that still run (a build, a test suite, a `sleep`). */
  commands: number;
}

/**
 * Summarises the tree under `root` from a list of processes. The agent is the first process below the
 * root that is not bubblewrap's; a launcher that starts the real binary under its own name (codex's and
 * opencode's npm `node` scripts start `codex` and `opencode`) is the agent's launcher, not a command:
 * `nameOf` gives the program a process runs (its script for an interpreter), to compare with its child's.
 */
export const treeActivity = (
  procs: readonly ProcStat[],
  root: number,
  nameOf: (pid: number) => string | undefined,
): TreeActivity | undefined => {
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  if (!byPid.has(root)) return undefined;
  const children = new Map<number, ProcStat[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const below = (pid: number): ProcStat[] => {
    const out: ProcStat[] = [];
    const stack = [...(children.get(pid) ?? [])];
    while (stack.length) {
      const p = stack.pop()!;
      out.push(p);
      stack.push(...(children.get(p.pid) ?? []));
    }
    return out;
  };
  const tree = [byPid.get(root)!, ...below(root)];
  const cpuTicks = tree.reduce((sum, p) => sum + p.cpuTicks, 0);
  let agent: ProcStat | undefined = byPid.get(root);
  // Through the wrapper and any sandbox processes (bubblewrap's, the model-only forwarder) to the agent.
  const sandboxOwn = (p: ProcStat) => p.comm === 'bwrap' || nameOf(p.pid) === 'blitz-sandbox-net';
  while (agent && (agent.pid === root || sandboxOwn(agent))) {
    const kids: ProcStat[] = children.get(agent.pid) ?? [];
    agent = kids.length === 1 ? kids[0] : undefined;
  }
  if (agent) {
    for (;;) {
      const kids: ProcStat[] = children.get(agent.pid) ?? [];
      const only = kids.length === 1 ? kids[0] : undefined;
      const name = nameOf(agent.pid);
      if (!only || !name || only.comm !== name.slice(0, 15)) break;
      agent = only;
    }
  }
  return {
    cpuMs: Math.round((cpuTicks * 1000) / TICKS_PER_SECOND),
    commands: agent ? below(agent.pid).length : 0,
  };
};

/** The program a process runs, by its argv: an interpreter's script (`node codex.js` → `codex`). */
export const programName = (cmdline: readonly string[]): string | undefined => {
  const [first, second] = cmdline;
  if (!first) return undefined;
  const interpreter = /^(node|nodejs|bun|deno|python[0-9.]*|sh|bash)$/.test(basename(first));
  const file = interpreter && second && !second.startsWith('-') ? second : first;
  return basename(file).replace(/\.(c|m)?js$/, '');
};

const readProcs = (): ProcStat[] => {
  const out: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const p = parseStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (p) out.push(p);
    } catch {
      // Gone since the listing.
    }
  }
  return out;
};

const cmdlineOf = (pid: number): string | undefined => {
  try {
    return programName(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean));
  } catch {
    return undefined;
  }
};

/** The activity of the live tree under `pid`; undefined when the process is gone. */
export const readTreeActivity = (pid: number): TreeActivity | undefined =>
  treeActivity(readProcs(), pid, cmdlineOf);
