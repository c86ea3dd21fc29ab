// `npm run test:milestone [-- --offline]`: the whole of it, as a user meets it (issue 37). Installs the
// real claude and codex CLIs (pinned in src/runner/tools/tested-versions.ts, into .cache/agents, as
// `npm run test:agents` does), then runs a 20-issue milestone on each fake forge with them as the
// workers (vitest.milestone.config.ts, test/milestone/). With --offline the run is in a network
// namespace with loopback only (test/agents/offline.ts): the install needs the registry, the run must
// not. The test prints its wall-clock time, the attempts per issue and the forge requests per merged
// issue, per forge.
import { spawnSync } from 'node:child_process';
import { loopbackOnly, OFFLINE_ENV } from '../test/agents/offline.ts';
import { installAgents } from './install-agents.ts';

const main = async (): Promise<number> => {
  const offline = process.argv.includes('--offline');
  await installAgents(false, ['claude', 'codex']);
  const argv = ['npx', 'vitest', 'run', '--config', 'vitest.milestone.config.ts', '--reporter=default'];
  if (offline)
    console.log(
      '\nThe milestone runs offline: a network namespace with loopback only (bwrap --unshare-net).',
    );
  const [file, ...args] = offline ? loopbackOnly(argv) : argv;
  const env = { ...process.env };
  if (offline) env[OFFLINE_ENV] = '1';
  else delete env[OFFLINE_ENV];
  const started = Date.now();
  const vitest = spawnSync(file!, args, { stdio: 'inherit', env });
  if (vitest.error) console.error(`${file} could not start: ${vitest.error.message}`);
  console.log(
    `test:milestone took ${((Date.now() - started) / 1000).toFixed(1)} s (both forges, with vitest's start)`,
  );
  return vitest.status ?? 1;
};

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
