// Doctor checks of the roster: for each entry, its argv built as a real attempt would build it
// (start and resume), its CLI found on the runner's PATH, and its version against the release the
// compatibility tier tested (src/runner/tools/tested-versions.ts).
import type { RosterEntry } from '../config/blitz-config.ts';
import { run } from '../runner/exec.ts';
import { findExecutable } from '../runner/runner.ts';
import { commandFor } from '../runner/tools/index.ts';
import type { PlaceholderValues } from '../runner/tools/placeholders.ts';
import { compareVersions, testedVersions, versionOf } from '../runner/tools/tested-versions.ts';
import { type CheckResult, fail, messageOf, ok, warn } from './checks.ts';

const sample: PlaceholderValues = {
  promptFile: '/workspace/.attempts/doctor/prompt.md',
  worktree: '/workspace/.worktrees/acme/app/ticket-1-headless',
  branch: 'ticket/1-headless',
  baseBranch: 'main',
  issue: 1,
  repo: 'acme/app',
};
const sampleSession = '00000000-0000-4000-8000-000000000000';

/** The first line `<bin> --version` prints, or undefined when it does not answer. */
export type VersionProbe = (bin: string, env: Record<string, string>) => Promise<string | undefined>;

export const probeVersion: VersionProbe = async (bin, env) => {
  try {
    const res = await run([bin, '--version'], { cwd: '/', env, timeoutMs: 30_000 });
    const text = `${res.stdout}\n${res.stderr}`.split('\n').find((l) => /\d+\.\d+\.\d+/.test(l));
    return res.exitCode === 0 ? text?.trim() : undefined;
  } catch {
    return undefined;
  }
};

const leftoverPlaceholder = (argv: readonly string[]): string | undefined =>
  argv.map((a) => /\{[a-z_]+\}/.exec(a)?.[0]).find(Boolean);

export const checkRosterEntry = async (
  entry: RosterEntry,
  env: Record<string, string>,
  probe: VersionProbe = probeVersion,
): Promise<CheckResult[]> => {
  const subject = `roster ${entry.name} (${entry.tool})`;
  if (entry.tool === 'ollama') return [ok(subject, 'review only; it runs no CLI')];
  let argv: string[];
  try {
    argv = commandFor(entry, sample, 'start', sampleSession)!.argv;
    const resume = commandFor(entry, sample, 'resume', sampleSession);
    const unknown = leftoverPlaceholder([...argv, ...(resume?.argv ?? [])]);
    if (unknown) return [fail(subject, `its argv names ${unknown}, which is no placeholder`)];
  } catch (err) {
    return [fail(subject, `its argv cannot be built: ${messageOf(err)}`)];
  }
  const bin = argv[0] ?? '';
  const results: CheckResult[] = [ok(subject, `argv: ${argv.join(' ')}`)];
  if (!findExecutable(bin, env.PATH)) {
    results.push(fail(subject, `"${bin}" is not on the runner's PATH (${env.PATH ?? 'unset'})`));
    return results;
  }
  if (entry.tool === 'custom') return results;
  const line = await probe(bin, env);
  const found = line ? versionOf(line) : undefined;
  if (!found) {
    results.push(fail(subject, `"${bin} --version" did not answer with a version`));
    return results;
  }
  const version = found.join('.');
  const tested =
    entry.tool in testedVersions ? testedVersions[entry.tool as keyof typeof testedVersions] : undefined;
  if (!tested) {
    results.push(ok(subject, `${bin} ${version}; the compatibility tier does not run ${entry.tool}`));
    return results;
  }
  const cmp = compareVersions(found, versionOf(tested.version)!);
  if (cmp === 0) results.push(ok(subject, `${bin} ${version}, the tested release`));
  else if (cmp > 0)
    results.push(
      warn(
        subject,
        `${bin} ${version} is newer than the tested ${tested.version}; \`npm run test:agents -- --latest\` tries it`,
      ),
    );
  else
    results.push(
      fail(
        subject,
        `${bin} ${version} is older than the tested ${tested.version}: install ${tested.package}@${tested.version}`,
      ),
    );
  return results;
};
