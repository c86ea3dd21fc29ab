// The per-repository file `.github/blitz.yml` (GitHub) or `.gitea/blitz.yml` (Gitea): build, smoke
// and ship commands, concurrency, who may command the bot, label names, merge method. Parsed once
// with zod; a broken file yields errors naming each field in words, and nothing runs on it.
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { closestMatch } from '../commands/did-you-mean.ts';
import { inlineCode } from '../commands/quote.ts';
import { httpUrlRule, requires, whenField, withJsonSchemaRule } from './json-schema-rules.ts';
import { isRefusedHost, refusedAddressWhy } from './refused-address.ts';
import { type ArgvPath, keepArgvWordsAsText } from './yaml-argv.ts';

const MAX_FILE_BYTES = 64 * 1024;
const MAX_ERRORS_SHOWN = 20;

// Commands run without a shell, so a command is a list of words: a string would have to be split
// on spaces, which is exactly the shell behaviour (quoting, globbing) this bot refuses to guess at.
// A word written as a number or boolean (`-1`, `true`) arrives as its text: see yaml-argv.ts.
export const argWord = z
  .string()
  .min(1, { error: 'must not be an empty word' })
  .max(4096)
  .refine((w) => !w.includes('\0'), { error: 'must not contain a NUL character' });

const argv = z
  .array(argWord, {
    error: (iss) =>
      typeof iss.input === 'string'
        ? 'must be a list of words, e.g. [npm, run, build]: commands run without a shell, so a string is never split on spaces'
        : undefined,
  })
  .min(1, { error: 'must name a command: the list is empty' })
  .max(64);

const mergeMethod = z.enum(['merge', 'squash', 'rebase']);
const labelName = z
  .string()
  .min(1)
  .max(50)
  .refine((s) => !/\p{Cc}/u.test(s), { error: 'must not contain control characters' });
const botLogin = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\[bot\])?$/, { error: 'is not a login name' });

const httpUrl = () =>
  withJsonSchemaRule(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }), httpUrlRule);

const shipSchema = withJsonSchemaRule(
  z
    .strictObject({
      /** `deploy` ships with `deploy`; `local` opens the milestone PR and starts `preview`; `auto` deploys only when a deploy command is set and the milestone is not a spike, and is local when unsure. */
      policy: z.enum(['auto', 'local', 'deploy']).default('auto'),
      /** argv that deploys the default branch after the milestone PR is merged. */
      deploy: argv.optional(),
      /** argv that starts a local preview of the integration branch (bind it to 0.0.0.0). */
      preview: argv.optional(),
      /** Port the preview listens on; the notification links to http://<LAN address>:<port>. */
      previewPort: z.int().min(1).max(65_535).optional(),
      /** Address of the deployed app, linked in the notification after a deploy. */
      deployUrl: httpUrl().optional(),
      /** Polled after the deploy until it answers 2xx: the run ships only once the app is proven live. */
      healthUrl: httpUrl()
        .refine((u) => !isRefusedHost(new URL(u).hostname), {
          error: `is ${refusedAddressWhy} (its host is checked again each time it is resolved)`,
        })
        .optional(),
      /** How long the deploy may take to become healthy, and the preview to answer on its port (default 300). */
      healthTimeoutSeconds: z.int().min(1).max(3600).optional(),
      /** Refuse to ship what no check verified: with no `build:` or `smoke:` that ran green, the run stops BLOCKED instead. */
      requireChecks: z.boolean().default(false),
    })
    .superRefine((ship, ctx) => {
      if (ship.policy === 'deploy' && !ship.deploy) {
        ctx.addIssue({
          code: 'custom',
          path: ['deploy'],
          message: 'is required when `ship.policy` is deploy',
        });
      }
    }),
  whenField('policy', 'deploy', requires('deploy')),
);

const labelsSchema = z.strictObject({
  /** Added to an issue that has a milestone: starts a blitz of that milestone. */
  blitz: labelName.default('blitz'),
  /** Added by someone with write access: lets an issue written by someone without it be worked on. */
  approved: labelName.default('blitz/approved'),
  /** An issue with this label is never dispatched while it is there. */
  hold: labelName.default('hold'),
  /** Marks a tracking issue: never worked on, closed when its children are. */
  epic: labelName.default('epic'),
});

const mergeMethodsSchema = z.strictObject({
  /** Issue PRs into `blitz/<slug>`: merge commits, so a wave build failure traces to one merge and reverts cleanly. */
  blitz: mergeMethod.default('merge'),
  /** Fleet PRs into the default branch: one squashed commit per ticket. */
  fleet: mergeMethod.default('squash'),
});

const ciSchema = z.strictObject({
  /** auto: wait when the PR head gets any check within settleSeconds; always: wait for at least one; never: merge without waiting. */
  wait: z.enum(['auto', 'always', 'never']).default('auto'),
  /** How long after a push a head with no checks yet is given for its first one to appear (auto). */
  settleSeconds: z.int().min(0).max(3600).default(60),
  /** After this long since the push, checks still running (or, under always, none at all) end in timed_out. */
  timeoutMinutes: z
    .int()
    .min(1)
    .max(24 * 60)
    .default(60),
  /** Check names (run name or status context) that never hold a merge, e.g. codecov/patch; `*` matches any text. */
  ignore: z
    .array(
      z
        .string()
        .min(1)
        .max(200)
        .refine((s) => !/\p{Cc}/u.test(s), { error: 'must not contain control characters' }),
    )
    .max(50)
    .default([]),
  /** Times a red check resumes the worker before the issue is held. */
  maxFixAttempts: z.int().min(0).max(10).default(2),
});

export const repoConfigSchema = z.strictObject({
  /** argv run once per wave on the integration branch, e.g. [npm, test]; absent = no build step. */
  build: argv.optional(),
  /** argv of the readiness gate's smoke check, e.g. [npm, run, smoke]; absent = no smoke step. */
  smoke: argv.optional(),
  /** Red smoke passes (each filed as a finding and worked) before the run stops BLOCKED. */
  smokeAttempts: z.int().min(1).max(10).default(3),
  /** How a finished milestone ships. */
  ship: shipSchema.prefault({}),
  /** Most workers at once for this repository (1 to 32); absent = the operator's limit. */
  maxSessions: z.int().min(1).max(32).optional(),
  /** Lowest repository permission that may command the bot; `read` lets anyone who can see the repo. */
  permission: z.enum(['read', 'write', 'admin']).default('write'),
  /** Names of the labels the bot reads. */
  labels: labelsSchema.prefault({}),
  /** One method for both kinds of PR (`squash`), or per kind ({ blitz: merge, fleet: squash }). */
  mergeMethod: z
    .union([z.string().pipe(mergeMethod), mergeMethodsSchema], {
      error: 'must be merge, squash or rebase, or a mapping like { blitz: merge, fleet: squash }',
    })
    .transform((m) => (typeof m === 'string' ? { blitz: m, fleet: m } : m))
    .prefault({}),
  /** Keep merged issue branches on origin (default: deleted with their worktrees once merged). */
  keepBranches: z.boolean().default(false),
  /** Bot accounts whose commands are obeyed (other bots are ignored): `renovate[bot]`. */
  allowedBots: z.array(botLogin).max(50).default([]),
  /** Waiting for the repository's own CI before a merge, and feeding red checks back to the worker. */
  ci: ciSchema.prefault({}),
  /**
   * Which of the operator's notify targets (blitz.config.yml `notify[].name`) this repository's runs tell;
   * absent = all of them, [] = none (the person who started a run is @mentioned instead).
   */
  notify: z.array(labelName).max(20).optional(),
});

export type RepoConfig = z.output<typeof repoConfigSchema>;
export interface ConfigError {
  /** Where in the file, e.g. `ship.policy` or `build[2]`; empty for the file as a whole. */
  path: string;
  message: string;
}
export type RepoConfigResult = { ok: true; config: RepoConfig } | { ok: false; errors: ConfigError[] };

/** The command lists, whose words are taken as the text written. */
export const repoConfigArgvPaths: readonly ArgvPath[] = [
  ['build'],
  ['smoke'],
  ['ship', 'deploy'],
  ['ship', 'preview'],
];

export const defaultRepoConfig = (): RepoConfig => repoConfigSchema.parse({});

const keysAt: Record<string, readonly string[]> = {
  '': Object.keys(repoConfigSchema.shape),
  ship: Object.keys(shipSchema.shape),
  labels: Object.keys(labelsSchema.shape),
  mergeMethod: Object.keys(mergeMethodsSchema.shape),
  ci: Object.keys(ciSchema.shape),
};

const pathText = (path: PropertyKey[]): string =>
  path.reduce<string>(
    (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
    '',
  );

const describe = (value: unknown): string => {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return inlineCode(typeof value === 'string' ? JSON.stringify(value) : String(value), 60);
};

const typeWords: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  array: 'a list',
  object: 'a mapping',
  boolean: 'true or false',
};

const predicate = (issue: z.core.$ZodIssue): string => {
  const got = ` (got ${describe(issue.input)})`;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      if (!issue.message.startsWith('Invalid input')) return issue.message;
      return `must be ${typeWords[issue.expected] ?? issue.expected}${got}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}${got}`;
    case 'too_small':
      if (issue.origin === 'array') return issue.message;
      if (issue.origin === 'string') return issue.minimum === 1 ? 'must not be empty' : issue.message;
      return `must be at least ${String(issue.minimum)}${got}`;
    case 'too_big':
      if (issue.origin === 'array') return `must have at most ${String(issue.maximum)} entries`;
      if (issue.origin === 'string') return `must be at most ${String(issue.maximum)} characters`;
      return `must be at most ${String(issue.maximum)}${got}`;
    default:
      return issue.message;
  }
};

const toErrors = (issue: z.core.$ZodIssue, prefix: PropertyKey[] = []): ConfigError[] => {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    const known = keysAt[pathText(path)] ?? [];
    return issue.keys.map((key) => {
      const guess = closestMatch(key, known);
      const where = pathText([...path, key]);
      // `previewPort` at the top level is a known setting in the wrong place.
      const home = Object.entries(keysAt).find(([parent, keys]) => parent !== '' && keys.includes(key))?.[0];
      const hint = guess
        ? ` (did you mean ${inlineCode(guess)}?)`
        : home
          ? ` (it belongs under ${inlineCode(home)})`
          : '';
      return { path: where, message: `${inlineCode(where, 80)} is not a setting blitz-bot knows${hint}` };
    });
  }
  if (issue.code === 'invalid_union') {
    // The branch that got past the type check is the one the writer meant (a word, or a mapping).
    const branch = issue.errors.find((b) => !b.some((i) => i.code === 'invalid_type' && i.path.length === 0));
    if (branch) return branch.flatMap((i) => toErrors(i, path));
  }
  const where = pathText(path);
  const subject = where === '' ? 'The file' : inlineCode(where, 80);
  return [{ path: where, message: `${subject} ${predicate(issue)}` }];
};

/**
 * The answers for the texts read last: every pass of every run reads its repository's blitz.yml, which
 * rarely changes, and its YAML parse and schema check cost more than the rest of the load's reading
 * of it. Each caller gets its own copy.
 */
const parsedConfigs = new Map<string, RepoConfigResult>();
const PARSED_CONFIGS_KEPT = 64;

export const parseRepoConfig = (yamlText: string | undefined): RepoConfigResult => {
  if (yamlText === undefined) return { ok: true, config: defaultRepoConfig() };
  let result = parsedConfigs.get(yamlText);
  if (result === undefined) {
    result = parseRepoConfigText(yamlText);
    if (parsedConfigs.size >= PARSED_CONFIGS_KEPT) parsedConfigs.clear();
    parsedConfigs.set(yamlText, result);
  }
  return structuredClone(result);
};

const parseRepoConfigText = (yamlText: string): RepoConfigResult => {
  if (Buffer.byteLength(yamlText, 'utf8') > MAX_FILE_BYTES) {
    return {
      ok: false,
      errors: [{ path: '', message: `The file is larger than ${MAX_FILE_BYTES / 1024} KiB` }],
    };
  }
  // prettyErrors puts "at line L, column C" in the first line of each message.
  const doc = parseDocument(yamlText, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => ({
        path: '',
        message: `The file is not valid YAML: ${e.message.split('\n')[0]!.replace(/:$/, '')}`,
      })),
    };
  }
  keepArgvWordsAsText(doc, repoConfigArgvPaths);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : 'unreadable';
    return { ok: false, errors: [{ path: '', message: `The file could not be read: ${reason}` }] };
  }
  if (data === null || data === undefined) return { ok: true, config: defaultRepoConfig() };
  if (typeof data !== 'object' || Array.isArray(data)) {
    return {
      ok: false,
      errors: [
        {
          path: '',
          message: `The file must be a mapping of settings, like \`build: [npm, test]\` (got ${describe(data)})`,
        },
      ],
    };
  }
  const result = repoConfigSchema.safeParse(data, { reportInput: true });
  if (result.success) return { ok: true, config: result.data };
  return { ok: false, errors: result.error.issues.flatMap((issue) => toErrors(issue)) };
};

/** The comment posted when the file is broken: what to fix, and that nothing runs until it is. */
export const formatConfigErrors = (errors: ConfigError[], filePath: string): string => {
  const shown = errors.slice(0, MAX_ERRORS_SHOWN).map((e) => `- ${e.message}`);
  if (errors.length > MAX_ERRORS_SHOWN) shown.push(`- … and ${errors.length - MAX_ERRORS_SHOWN} more`);
  return [
    `**blitz-bot cannot use ${inlineCode(filePath, 120)}**, so nothing will run until it is fixed on the default branch:`,
    '',
    ...shown,
  ].join('\n');
};
