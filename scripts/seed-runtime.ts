// What an agent CLI would fetch from the registry while it runs, installed with the CLI instead, so a
// worker on a runner without the registry (the tier's --offline mode) has it. Each seed is a directory
// in the CLI's install folder and the environment a roster entry sets to point the CLI at it; the
// workers' sandbox shows a directory an entry's environment names, read-only.
//
// What the CLIs of the tier fetch at run time (found by running each in a fresh HOME, with and without
// the network):
// - opencode installs `@opencode-ai/plugin` (its own version) with its bundled npm into each config
//   directory it reads, at every start: `~/.config/opencode` is in the worker's HOME, new per attempt,
//   so every attempt downloads it again (about 30 MB through ~/.npm). Without the registry the install
//   fails in the background ("background dependency install failed"), which stops the attempt only
//   when the repository brings opencode tools or plugins (opencode waits for the install then).
//   opencode leaves a config directory it cannot write alone, so the seed is a global config directory
//   (`$XDG_CONFIG_HOME/opencode`) holding the package, plus the `.gitignore` opencode writes there when
//   it is absent (writing it in a read-only directory would stop opencode).
// - claude, codex, gemini and qwen fetch nothing they need: their update checks and telemetry are
//   turned off by the tier's roster entries (as README says an operator does), and the tier passes
//   offline without a seed for them.
//
// As a command (`node scripts/seed-runtime.ts TOOL VERSION DIR`, no dependency but node and npm, so
// the runner image runs it at build time with Node's type stripping) it seeds TOOL into DIR and
// prints the environment as JSON.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentTool } from '../test/agents/agent-clis.ts';

export type Npm = (args: string[], cwd: string) => Promise<string>;

/** The lines opencode 1.x writes to a config directory's `.gitignore` (what it installs there). */
const OPENCODE_GITIGNORE = 'node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore';

/** The config home (`XDG_CONFIG_HOME`) the opencode seed in `installDir` makes. */
export const opencodeConfigHome = (installDir: string): string => join(installDir, 'config-home');

const seedOpencode = async (
  npm: Npm,
  version: string,
  installDir: string,
): Promise<Record<string, string>> => {
  const configHome = opencodeConfigHome(installDir);
  const dir = join(configHome, 'opencode');
  const marker = join(configHome, 'seeded.json');
  if (!existsSync(marker)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
    console.log(`seeding @opencode-ai/plugin@${version} into ${dir}`);
    await npm(
      [
        'install',
        '--no-audit',
        '--no-fund',
        // As opencode's own install: no package's scripts run.
        '--ignore-scripts',
        '--save-exact',
        '--prefix',
        dir,
        `@opencode-ai/plugin@${version}`,
      ],
      dir,
    );
    writeFileSync(join(dir, '.gitignore'), OPENCODE_GITIGNORE);
    writeFileSync(marker, JSON.stringify({ pkg: '@opencode-ai/plugin', version }));
  }
  return { XDG_CONFIG_HOME: configHome };
};

/** Installs what `tool` fetches at run time next to its install; the environment that points it there. */
export const seedRuntime = async (
  tool: AgentTool,
  version: string,
  installDir: string,
  npm: Npm,
): Promise<Record<string, string>> => (tool === 'opencode' ? seedOpencode(npm, version, installDir) : {});

const npmCommand: Npm = (args, cwd) =>
  new Promise((done, fail) => {
    execFile('npm', args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? fail(new Error(`npm ${args.join(' ')} failed: ${stderr || err.message}`)) : done(stdout),
    );
  });

const main = async (argv: string[]): Promise<void> => {
  const [tool, version, dir] = argv;
  if (!tool || !version || !dir || argv.length !== 3)
    throw new Error('usage: node scripts/seed-runtime.ts TOOL VERSION DIR');
  // Only the tools this file knows: a name from the command line chooses nothing else.
  const tools = ['claude', 'codex', 'opencode', 'gemini', 'qwen'] as const satisfies readonly AgentTool[];
  const known = tools.find((t) => t === tool);
  if (!known) throw new Error(`unknown tool ${tool} (one of ${tools.join(', ')})`);
  if (!/^\d+\.\d+\.\d+[\w.+-]*$/.test(version)) throw new Error(`not a version: ${version}`);
  console.log(JSON.stringify(await seedRuntime(known, version, resolve(dir), npmCommand)));
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
