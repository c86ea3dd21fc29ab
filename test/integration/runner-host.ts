// A supervising process for the restart test: starts one attempt with a file-backed ledger, prints
// its id, and keeps supervising until it is killed. Run: node --import tsx runner-host.ts <json>.
import { z } from 'zod';
import { silentLogger } from '../../src/observability/logger.ts';
import { JsonFileAttemptLedger } from '../../src/runner/ledger.ts';
import { Runner } from '../../src/runner/runner.ts';
import { systemClock } from '../../src/runner/types.ts';
import { testEnv } from '../support/git.ts';
import { attemptJob, fakeEntry } from './runner-harness.ts';

const args = z
  .object({
    workspace: z.string(),
    ledgerFile: z.string(),
    cloneUrl: z.string(),
    agentEnv: z.record(z.string(), z.string()),
  })
  .parse(JSON.parse(process.argv[2] ?? '{}'));

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
  clock: systemClock,
  events: (e) => console.log(JSON.stringify(e)),
  logger: silentLogger(),
  credentials: async () => undefined,
  baseEnv: testEnv(),
});

const res = await runner.execute(attemptJob(args.cloneUrl, fakeEntry(args.agentEnv)));
if (res.kind === 'attempt') console.log(JSON.stringify({ attemptId: res.attempt.id, pid: res.attempt.pid }));
setInterval(() => void runner.tick({ stalls: false }), 200);
