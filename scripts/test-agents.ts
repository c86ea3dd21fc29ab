// `npm run test:agents [-- --latest] [-- --offline] [-- --tool NAME …]`: installs the agent CLIs
// (pinned in src/runner/tools/tested-versions.ts, or the newest releases with --latest) and what they
// would fetch at run time, then runs the compatibility tier (vitest.agents.config.ts); `--tool NAME`
// (repeatable) runs only those tools. With --offline the tier runs in a network namespace with loopback
// only (test/agents/offline.ts): the install needs the registry, the CLIs must not.
// With --latest it ends with what broke, per tool and scenario, so a pin can be moved knowingly.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { cacheDir } from '../test/agents/agent-clis.ts';
import { loopbackOnly, OFFLINE_ENV } from '../test/agents/offline.ts';
import { installAgents, toolsOf } from './install-agents.ts';

const reportSchema = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      assertionResults: z.array(
        z.object({
          fullName: z.string(),
          status: z.string(),
          failureMessages: z.array(z.string()).default([]),
        }),
      ),
    }),
  ),
});

const main = async (): Promise<number> => {
  const latest = process.argv.includes('--latest');
  const offline = process.argv.includes('--offline');
  const tools = toolsOf(process.argv);
  const selected = await installAgents(latest, tools);
  const report = join(cacheDir, 'report.json');
  rmSync(report, { force: true });
  const argv = [
    'npx',
    'vitest',
    'run',
    '--config',
    'vitest.agents.config.ts',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...tools.map((t) => `test/agents/${t}.test.ts`),
  ];
  if (offline)
    console.log('\nThe tier runs offline: a network namespace with loopback only (bwrap --unshare-net).');
  const [file, ...args] = offline ? loopbackOnly(argv) : argv;
  const env = { ...process.env };
  if (offline) env[OFFLINE_ENV] = '1';
  else delete env[OFFLINE_ENV];
  const vitest = spawnSync(file!, args, { stdio: 'inherit', env });
  if (vitest.error) console.error(`${file} could not start: ${vitest.error.message}`);
  const status = vitest.status ?? 1;
  if (!latest) return status;
  if (!existsSync(report)) {
    console.log('\nThe newest releases: the tier did not run to a report.');
    return status;
  }
  const parsed = reportSchema.parse(JSON.parse(readFileSync(report, 'utf8')));
  const broke = parsed.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === 'failed'));
  const versions = Object.entries(selected)
    .map(([tool, s]) => `${tool} ${s.version}`)
    .join(', ');
  console.log(`\nThe newest releases (${versions}):`);
  if (broke.length === 0)
    console.log('  every scenario passed; the pins in src/runner/tools/tested-versions.ts can move.');
  for (const a of broke) {
    const why = (a.failureMessages[0] ?? '').split('\n').find((l) => l.trim()) ?? 'failed';
    console.log(`  BROKE ${a.fullName}: ${why.slice(0, 300)}`);
  }
  return status;
};

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
