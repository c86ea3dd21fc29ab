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
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentTool } from '../test/agents/agent-clis.ts';

export type Npm = (args: string[], cwd: string) => Promise<string>;

/** The lines opencode 1.x writes to a config directory's `.gitignore` (what it installs there). */
const OPENCODE_GITIGNORE = 'node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore';

const seedOpencode = async (
  npm: Npm,
  version: string,
  installDir: string,
): Promise<Record<string, string>> => {
  const configHome = join(installDir, 'config-home');
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
