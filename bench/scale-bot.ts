// The bot of `bench/scale.bench.ts`, in a process of its own so that its CPU and memory are its own:
// the composed bot (compose/bot.ts, what `npm start` runs) over the env and blitz.config.yml the bench
// wrote, with its own cron, supervision, webhook route and worker collection. Started as
// `node --import tsx bench/scale-bot.ts <spec.json>`; prints one JSON line `{ "port": N }` once it
// listens. Every second, and on SIGTERM before it exits, it writes what the bench reads of it to the
// spec's `statsFile`: its CPU (ms), its peak resident memory (MB) and how long each reconcile took.
// What differs from `serve`, and why: the worker limit is the configured sessions (the runner's own
// sample of the host's load would allow one worker on a busy shared host; the fake workers sleep), and
// GitHub's one second between writes is scaled (`githubSecondMs`) as the tests against the fake do.
import { readFileSync, writeFileSync } from 'node:fs';
import { composeBot } from '../src/compose/bot.ts';
import { loadBlitzConfig } from '../src/config/blitz-config.ts';
import { loadEnv } from '../src/config/env.ts';
import { silentLogger } from '../src/observability/logger.ts';

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

const writeStats = () => {
  const cpu = process.cpuUsage(cpuAtStart);
  writeFileSync(
    spec.statsFile,
    JSON.stringify({
      cpuMs: (cpu.user + cpu.system) / 1000,
      // maxRSS is in kilobytes.
      rssPeakMb: process.resourceUsage().maxRSS / 1024,
      reconcileMs: reconciles,
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
