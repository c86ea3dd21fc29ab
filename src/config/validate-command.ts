// `blitz-bot config validate [--repo] FILE`: checks an operator file (blitz.config.yml) or, with
// --repo, a repository file (.github/blitz.yml, .gitea/blitz.yml) without starting the bot, by the
// same parsers the bot uses: every problem with its place in the file and, for a misspelt key, the
// nearest known setting. Exit 0 valid, 1 problems (or the file cannot be read), 2 bad arguments.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isAppError } from '../errors.ts';
import { parseBlitzConfig } from './blitz-config.ts';
import { parseRepoConfig } from './repo-config.ts';

export const configUsage = 'usage: blitz-bot config validate [--repo] FILE';

export type ConfigKind = 'operator' | 'repo';

/** Every problem of `text` as the bot would see it; none when the bot takes the file. */
export const configProblems = (kind: ConfigKind, text: string, source: string): string[] => {
  if (kind === 'repo') {
    const result = parseRepoConfig(text);
    return result.ok ? [] : result.errors.map((e) => e.message);
  }
  try {
    parseBlitzConfig(text, source);
    return [];
  } catch (err) {
    if (!isAppError(err, 'config_invalid')) throw err;
    const listed = err.details?.problems;
    return Array.isArray(listed) ? listed.map(String) : [err.message];
  }
};

export interface ConfigCliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  read?: (path: string) => string;
}

const defaultIo: ConfigCliIo = { out: (t) => console.log(t), err: (t) => console.error(t) };

export const runConfigCli = async (args: string[], io: ConfigCliIo = defaultIo): Promise<number> => {
  let parsed: { values: { repo?: boolean; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      options: { repo: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    io.err(`${err instanceof Error ? err.message : String(err)}\n${configUsage}`);
    return 2;
  }
  if (parsed.values.help) {
    io.out(configUsage);
    return 0;
  }
  const [verb, file, ...extra] = parsed.positionals;
  if (verb !== 'validate' || !file || extra.length > 0) {
    io.err(configUsage);
    return 2;
  }
  let text: string;
  try {
    text = (io.read ?? ((p: string) => readFileSync(p, 'utf8')))(file);
  } catch (err) {
    io.err(`${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
    return 1;
  }
  const kind: ConfigKind = parsed.values.repo ? 'repo' : 'operator';
  const problems = configProblems(kind, text, file);
  const what = kind === 'repo' ? 'repository settings' : 'operator settings';
  if (problems.length === 0) {
    io.out(`${file}: valid ${what}`);
    return 0;
  }
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  io.err([`${file}: ${count} in the ${what}:`, ...problems.map((p) => `- ${p}`)].join('\n'));
  return 1;
};
