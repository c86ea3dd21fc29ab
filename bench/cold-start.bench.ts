// Cold-start figures: how long `blitz-bot --version` and `blitz-bot runner --help` take from spawn to
// exit, and `blitz-bot serve` from spawn to its first `/healthz` answer (embedded SQLite, nothing
// configured), each the median of a few runs of the compiled entry (dist/main.js, as the bin runs
// it). Baseline in the same run: `node -e 0`. Goals (printed beside, not asserted): the first two
// under 1.5 × `node -e 0` + 300 ms, serve healthy under 1.5 s. Beside each wall time, the CPU time the
// process used (from /proc): on a machine busy with other work the wall times grow, the CPU times not.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import buildDist from '../test/support/build-dist.ts';
import { mainJs } from '../test/support/cli.ts';
import { removeDir, tempDir, testEnv } from '../test/support/git.ts';
import { type Bench, type Figure, median, round } from './figures.ts';

const RUNS = 7;

interface Timing {
  wallMs: number;
  cpuMs: number;
}

/** utime + stime from a /proc stat line (fields counted after the command name), in ms at 100 Hz. */
const cpuOfStat = (stat: string, utime: number, stime: number): number => {
  const f = stat.split(') ')[1]?.split(' ') ?? [];
  return (Number(f[utime]) + Number(f[stime])) * 10;
};
/** CPU ms of this process's waited-for children so far (cutime + cstime). */
const childrenCpuMs = (): number => cpuOfStat(readFileSync('/proc/self/stat', 'utf8'), 13, 14);

/** From spawn to exit of `node ARGS…`; a non-zero exit fails the bench. */
const timeToExit = (args: string[]): Promise<Timing> =>
  new Promise((resolve, reject) => {
    const cpu0 = childrenCpuMs();
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env: testEnv(), stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve({ wallMs: performance.now() - t0, cpuMs: childrenCpuMs() - cpu0 })
        : reject(new Error(`node ${args.join(' ')}: exit ${code}`)),
    );
  });

/** From spawn of `blitz-bot serve` to its first 200 on /healthz; then it is stopped. */
const timeToHealthy = async (port: number): Promise<Timing> => {
  const dir = tempDir('blitz-bench-serve-');
  const config = join(dir, 'blitz.config.yml');
  writeFileSync(config, `runner:\n  workspace: ${JSON.stringify(join(dir, 'workspace'))}\n`);
  const t0 = performance.now();
  // From the checkout, as a deployment runs it (app.yml beside it); its state in a temp dir.
  const child = spawn(process.execPath, [mainJs, 'serve'], {
    env: {
      BLITZ_CONFIG: config,
      ...testEnv(),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: `sqlite:${join(dir, 'blitz.db')}`,
    },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode} before answering`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ok) {
        const wallMs = performance.now() - t0;
        return { wallMs, cpuMs: cpuOfStat(readFileSync(`/proc/${child.pid}/stat`, 'utf8'), 11, 12) };
      }
      if (performance.now() - t0 > 60_000) throw new Error('serve not healthy within 60 s');
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
    removeDir(dir);
  }
};

const bench: Bench = async () => {
  buildDist();
  const runs: Record<'node' | 'version' | 'help' | 'serve', Timing[]> = {
    node: [],
    version: [],
    help: [],
    serve: [],
  };
  // Interleaved, so a busy moment of the machine weighs on each the same.
  for (let i = 0; i < RUNS; i++) {
    runs.node.push(await timeToExit(['-e', '0']));
    runs.version.push(await timeToExit([mainJs, '--version']));
    runs.help.push(await timeToExit([mainJs, 'runner', '--help']));
    runs.serve.push(await timeToHealthy(34000 + Math.floor(Math.random() * 2000)));
  }
  const wall = (ts: Timing[]) => median(ts.map((t) => t.wallMs));
  const cpu = (ts: Timing[]) => median(ts.map((t) => t.cpuMs));
  const cliGoal = 1.5 * wall(runs.node) + 300;
  const figure = (name: string, value: number, unit = 'ms'): Figure => ({
    name: `cold_start.${name}`,
    value: round(value, unit === 'ms' ? 0 : 2),
    unit,
  });
  return [
    figure('baseline.node_e0.median', wall(runs.node)),
    figure('baseline.node_e0.cpu', cpu(runs.node)),
    figure('version.median', wall(runs.version)),
    figure('version.cpu', cpu(runs.version)),
    figure('runner_help.median', wall(runs.help)),
    figure('runner_help.cpu', cpu(runs.help)),
    figure('cli.goal', cliGoal),
    figure('version.vs_goal', wall(runs.version) / cliGoal, 'x'),
    figure('runner_help.vs_goal', wall(runs.help) / cliGoal, 'x'),
    figure('serve_healthz.median', wall(runs.serve)),
    figure('serve_healthz.cpu', cpu(runs.serve)),
    figure('serve_healthz.goal', 1500),
    figure('serve_healthz.vs_goal', wall(runs.serve) / 1500, 'x'),
  ];
};

export default bench;
