// A supervising process for the restart test: starts one attempt with a file-backed ledger, prints
// its id, and keeps supervising until it is killed. Plain JavaScript over the compiled runner
// (dist/, built by test/support/build-dist.ts), so it starts as the bot does, without tsx.
// Run: node runner-host.mjs <json: { workspace, ledgerFile, job, baseEnv }> (the test builds the job).
import { silentLogger } from '../../dist/observability/logger.js';
import { JsonFileAttemptLedger } from '../../dist/runner/ledger.js';
import { Runner } from '../../dist/runner/runner.js';

const args = JSON.parse(process.argv[2] ?? '{}');
for (const key of ['workspace', 'ledgerFile', 'job', 'baseEnv'])
  if (!(key in args)) throw new Error(`runner-host: missing ${key} in its argument`);

const runner = new Runner({
  config: {
    workspace: args.workspace,
    maxSessions: 1,
    stallCheckSeconds: 90,
    attemptTimeoutMinutes: 60,
    buildConcurrency: 1,
    maxNudges: 6,
    retries: 0,
  },
  ledger: new JsonFileAttemptLedger(args.ledgerFile),
  clock: { now: () => new Date() },
  events: (e) => console.log(JSON.stringify(e)),
  logger: silentLogger(),
  credentials: async () => undefined,
  baseEnv: args.baseEnv,
});

const res = await runner.execute(args.job);
if (res.kind === 'attempt') console.log(JSON.stringify({ attemptId: res.attempt.id, pid: res.attempt.pid }));
setInterval(() => void runner.tick({ stalls: false }), 200);
