// The bot of `bench/scale.bench.ts`, in a process of its own so that its CPU and memory are its own:
// the composed bot (compose/bot.ts, what `npm start` runs) over the env and blitz.config.yml the bench
// wrote, with its own cron, supervision, webhook route and worker collection. Started as `node
// [npm start's node flags] --import tsx bench/scale-bot.ts <spec.json>`; prints one JSON line
// `{ "port": N }` once it listens. Every second, and on SIGTERM before it exits, it writes what the bench reads of it to the
// spec's `statsFile`: its CPU (ms) and peak resident memory (MB), each with its spawn host's, and how
// long each reconcile took (appended to `<statsFile>.reconciles`, a line each), and the commands it started by kind (`git fetch`…). Its memory is split too:
// its own peak RSS, heap, external and array buffers, and the host's; with BLITZ_SCALE_MEMORY_LOG=<file>
// one line a second of each (and the host's current RSS), to tell a transient from what is retained.
// What differs from `serve`, and why: the worker limit is the configured sessions (the runner's own
// sample of the host's load would allow one worker on a busy shared host; the fake workers sleep), and
// GitHub's one second between writes is scaled (`githubSecondMs`) as the tests against the fake do.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { PerformanceObserver, constants as perf } from 'node:perf_hooks';
import { composeBot } from '../src/compose/bot.ts';
import { loadBlitzConfig } from '../src/config/blitz-config.ts';
import { loadEnv } from '../src/config/env.ts';
import { silentLogger } from '../src/observability/logger.ts';
import { commandCounts } from '../src/runner/command-count.ts';
import { spawnHostPid } from '../src/runner/spawn-client.ts';

interface Spec {
  vars: Record<string, string>;
  baseEnv: Record<string, string>;
  statsFile: string;
  tickSeconds: number;
  supervisionSeconds: number;
  githubSecondMs: number;
  sessions: number;
}

const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Spec;
const env = loadEnv(spec.vars);
const reconciles: number[] = [];
const cpuAtStart = process.cpuUsage();
const bot = await composeBot({
  env,
  config: loadBlitzConfig(env.BLITZ_CONFIG, {}),
  logger: silentLogger(),
  version: '0.0.0-bench',
  baseEnv: spec.baseEnv,
  notifyTargets: {},
  tickSeconds: spec.tickSeconds,
  supervisionSeconds: spec.supervisionSeconds,
  defaultMetrics: false,
  githubRetry: { retries: 3, minDelayMs: 50, secondMs: spec.githubSecondMs, maxRetryAfterSeconds: 60 },
  machine: () => ({ limit: spec.sessions, contended: false }),
  onReconciled: (_runId, ms) => void reconciles.push(ms),
});
const { port } = await bot.start();

/**
 * The spawn host's CPU (ms) and peak RSS (MB) from /proc: it starts the bot's commands, so it is part of
 * the bot's cost. Kept at its last reading, as it dies with the bot.
 */
let host = { cpuMs: 0, rssPeakMb: 0, rssMb: 0 };
const readHost = () => {
  const pid = spawnHostPid();
  if (pid === undefined) return;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime (fields 14 and 15) in clock ticks of 10 ms.
    const cpuMs = (Number(fields[11]) + Number(fields[12])) * 10;
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
    host = {
      cpuMs,
      rssPeakMb: Math.max(host.rssPeakMb, kb('VmHWM') / 1024),
      rssMb: kb('VmRSS') / 1024,
    };
  } catch {
    // gone between the pid and the read: the last reading stands
  }
};

/** Time spent collecting garbage (ms) and how many full collections: what a smaller heap costs in CPU. */
const gc = { ms: 0, major: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.ms += e.duration;
    // A gc entry's detail (node ≥ 16) names its kind; @types/node leaves it off PerformanceEntry.
    const kind = (e as { detail?: { kind?: number } }).detail?.kind;
    if (kind === perf.NODE_PERFORMANCE_GC_MAJOR) gc.major += 1;
  }
}).observe({ entryTypes: ['gc'] });

/** The bot's own memory peaks (MB), sampled each second: which part of its RSS grows. */
const peaks = { heapUsedMb: 0, heapTotalMb: 0, externalMb: 0, arrayBuffersMb: 0 };
const memoryLog = process.env.BLITZ_SCALE_MEMORY_LOG;
const startedAt = Date.now();
const sampleMemory = () => {
  const m = process.memoryUsage();
  const mb = (n: number) => Math.round((n / 1048576) * 10) / 10;
  const now = {
    heapUsedMb: mb(m.heapUsed),
    heapTotalMb: mb(m.heapTotal),
    externalMb: mb(m.external),
    arrayBuffersMb: mb(m.arrayBuffers),
  };
  for (const k of Object.keys(peaks) as (keyof typeof peaks)[]) peaks[k] = Math.max(peaks[k], now[k]);
  if (memoryLog)
    appendFileSync(
      memoryLog,
      `${JSON.stringify({ s: Math.round((Date.now() - startedAt) / 1000), pid: process.pid, rssMb: mb(m.rss), ...now, hostRssMb: host.rssMb })}\n`,
    );
};

const writeStats = () => {
  // The passes since the last write, appended: the whole list rewritten every second grew with the run
  // and was counted as the bot's own CPU.
  const passes = reconciles.splice(0);
  if (passes.length > 0) appendFileSync(`${spec.statsFile}.reconciles`, `${passes.join('\n')}\n`);
  const cpu = process.cpuUsage(cpuAtStart);
  readHost();
  sampleMemory();
  const botRssPeakMb = process.resourceUsage().maxRSS / 1024;
  writeFileSync(
    spec.statsFile,
    JSON.stringify({
      cpuMs: (cpu.user + cpu.system) / 1000 + host.cpuMs,
      hostCpuMs: host.cpuMs,
      // maxRSS is in kilobytes; the host's peak is added, as if both peaked at once.
      rssPeakMb: botRssPeakMb + host.rssPeakMb,
      botRssPeakMb,
      hostRssPeakMb: host.rssPeakMb,
      ...peaks,
      gcMs: gc.ms,
      gcMajor: gc.major,
      commands: commandCounts(),
    }),
  );
};
const every = setInterval(writeStats, 1000);
process.once('SIGTERM', () => {
  clearInterval(every);
  void bot.stop().finally(() => {
    writeStats();
    process.exit(0);
  });
});
console.log(JSON.stringify({ port }));
