// The operator file `blitz.config.yml`: runner limits, the roster of agent tools, budget probe,
// notify targets. Parsed once with zod; a bad file is reported with each field's path in words.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { closestMatch } from '../commands/did-you-mean.ts';
import { AppError } from '../errors.ts';
import { httpUrlRule, requires, whenField, withJsonSchemaRule } from './json-schema-rules.ts';
import { notifyListSchema } from './notify-schema.ts';
import { knownKeysAt } from './schema-keys.ts';
import { entryEnvSchema, passEnvItemSchema } from './worker-env.ts';
import { type ArgvPath, keepArgvWordsAsText } from './yaml-argv.ts';

export const toolNames = [
  'claude',
  'codex',
  'opencode',
  'gemini',
  'qwen',
  'aider',
  'ollama',
  'custom',
] as const;

export const rosterEntrySchema = withJsonSchemaRule(
  z
    .strictObject({
      /** Unique name the planner routes to and the ledger records. */
      name: z.string().min(1),
      /** Which CLI adapter builds the argv. `ollama` entries are review-only. */
      tool: z.enum(toolNames),
      /** Model passed to the tool (`--model`); for aider a local model is `ollama_chat/<model>`. */
      model: z.string().min(1).optional(),
      /** Provider hint for tools that need one (opencode `provider/model`). */
      provider: z.string().min(1).optional(),
      /** argv template of a `custom` tool; placeholders like `{prompt_file}` are substituted per element. */
      command: z.array(z.string()).min(1).optional(),
      /** argv template to resume the same session (nudges, interrupted workers). */
      resume: z.array(z.string()).min(1).optional(),
      /** Extra arguments appended to a built-in tool's argv. */
      args: z.array(z.string()).optional(),
      /** What this entry may do: author (`blitz`, `fleet`), plan, or review. */
      roles: z.array(z.enum(['blitz', 'fleet', 'plan', 'review'])).min(1),
      /** Difficulty tiers this entry is fit for. */
      tiers: z.array(z.enum(['execution', 'design', 'subtle'])).min(1),
      /** Lower is cheaper; defaults to the entry's position in the list. */
      costRank: z.number().int().min(0).optional(),
      /** Reasoning effort where the tool has one. */
      effort: z.enum(['medium', 'high']).optional(),
      /**
       * claude: permission rules added to the built-in allowlist (`--allowedTools`), e.g.
       * `Bash(pytest:*)`, `Bash(cargo:*)`, `WebFetch`. The repository's own build and smoke commands are
       * allowed without it.
       */
      allowedTools: z
        .array(z.string().regex(/^[^,\s][^,]*$/, 'must be one rule, like Bash(pytest:*), without commas'))
        .optional(),
      /**
       * Extra environment for the worker: a literal value (a setting, never a secret pasted in the
       * file), or `{ fromEnv: NAME }`, read from the runner's environment when the worker starts.
       */
      env: entryEnvSchema.optional(),
      /**
       * With `runner.network: model-only`, the `host:port` endpoints this entry's workers may reach
       * besides the tool's own model API and the hosts its `*_BASE_URL` settings name.
       */
      endpoints: z
        .array(z.string().regex(/^(?:\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must be host:port'))
        .optional(),
    })
    .superRefine((e, ctx) => {
      if (e.tool === 'custom' && !e.command) {
        ctx.addIssue({ code: 'custom', path: ['command'], message: 'is required when tool is custom' });
      }
      if (e.tool === 'custom' && !e.resume) {
        ctx.addIssue({ code: 'custom', path: ['resume'], message: 'is required when tool is custom' });
      }
      if (e.allowedTools && e.tool !== 'claude') {
        ctx.addIssue({
          code: 'custom',
          path: ['allowedTools'],
          message: 'applies to claude only (other tools take their permissions from `args`)',
        });
      }
      if (e.tool === 'ollama' && e.roles.some((r) => r !== 'review')) {
        ctx.addIssue({
          code: 'custom',
          path: ['roles'],
          message: 'an ollama entry can only have the review role',
        });
      }
    }),
  {
    allOf: [
      whenField('tool', 'custom', requires('command', 'resume')),
      whenField('tool', 'ollama', { properties: { roles: { type: 'array', items: { const: 'review' } } } }),
      {
        if: { type: 'object', properties: { allowedTools: true }, required: ['allowedTools'] },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a promise
        then: { type: 'object', properties: { tool: { const: 'claude' } } },
      },
    ],
  },
);
export type RosterEntry = z.infer<typeof rosterEntrySchema>;

const runnerSchema = z
  .object({
    /** Clones and worktrees live here. */
    workspace: z.string().min(1).default('./data/workspace'),
    /** Machine limit on concurrent workers. */
    maxSessions: z.number().int().min(1).default(2),
    /** Seconds between stall checks. */
    stallCheckSeconds: z.number().int().min(5).default(90),
    /**
     * Free space (MiB) the workspace's filesystem needs before a session parked on a full disk is
     * resumed: below it the resume ends at once as the same environment failure and the park waits on.
     */
    minFreeDiskMb: z.number().int().min(0).default(100),
    /** A worker still running after this is killed and the attempt ends. */
    attemptTimeoutMinutes: z.number().int().min(1).default(60),
    /** Host-wide limit on build and smoke commands running at once. */
    buildConcurrency: z.number().int().min(1).default(1),
    /** Nudges before a stalled attempt is handed to a person. */
    maxNudges: z.number().int().min(0).default(6),
    /** Retries of a failed attempt, each with the failure fed back. */
    retries: z.number().int().min(0).default(2),
    /**
     * How long a run parked by an environment failure (model endpoint down, spend limit) waits before
     * checking again: `initialSeconds`, doubling each time it is still down, up to `maxSeconds`. A
     * reset time the tool printed is waited for instead. Unset: 60 s up to an hour
     * (`defaultEnvironmentBackoff` in src/plan/environment-park.ts).
     */
    environmentBackoff: z
      .strictObject({
        initialSeconds: z.number().int().min(1).max(86_400).default(60),
        maxSeconds: z
          .number()
          .int()
          .min(1)
          .max(7 * 86_400)
          .default(3600),
      })
      .refine((b) => b.maxSeconds >= b.initialSeconds, {
        path: ['maxSeconds'],
        message: 'must be at least initialSeconds',
      })
      .optional(),
    /** Tokens (input + output) one issue may spend in a run before it is held for a person; a warning at 80 %. */
    maxTokensPerIssue: z.number().int().min(1).optional(),
    /** Attempts one issue may take (environment failures not counted) before it is held; default 3 failed ones. */
    maxAttemptsPerIssue: z.number().int().min(1).max(100).optional(),
    /** Agent sessions one issue may start (a resume is the same session) before it is held. */
    maxSessionsPerIssue: z.number().int().min(1).max(100).optional(),
    /**
     * Dollars one issue may spend in a run (its attempts priced by `prices:`) before it is held for a
     * person; a warning at 80 %. Attempts of an unknown price are not counted.
     */
    maxCostPerIssue: z.number().positive().max(1_000_000).optional(),
    /**
     * Dollars a run's issues may spend together (each since its last `/blitz retry`) before every
     * issue not yet running is held for a person; a warning at 80 %.
     */
    maxCostPerRun: z.number().positive().max(1_000_000).optional(),
    /**
     * OS user (name or uid) workers run as, apart from the bot: it then cannot read the bot's
     * environment or files. The bot must run as root to start them; unset, workers run as the bot.
     */
    user: z
      .union([z.string().min(1), z.number().int().min(0)])
      .transform(String)
      .optional(),
    /**
     * Variables of the runner's environment workers get besides PATH, HOME, the locale and the agent
     * providers' own (`ANTHROPIC_*`, `OPENAI_*`…): names, or prefixes ending in `*`. Unset: proxies,
     * CA bundles and the cloud providers' variables (`defaultPassEnv` in worker-env.ts); a list
     * replaces that default. The bot's own secrets are refused.
     */
    passEnv: z.array(passEnvItemSchema).optional(),
    /** Group (name or gid) of the workers; default the user's own group. */
    group: z
      .union([z.string().min(1), z.number().int().min(0)])
      .transform(String)
      .optional(),
    /**
     * What workers and gates run in: `bubblewrap` (their repository writable, the toolchain read-only,
     * a private HOME and /tmp, their own PID namespace, none of the bot's files) or `none`. Unset:
     * bubblewrap when it works on this host (tried once at start), else none with a warning.
     */
    sandbox: z.enum(['bubblewrap', 'none']).optional(),
    /**
     * `full`: workers share the host's network. `model-only` (needs the bubblewrap sandbox): a worker
     * reaches only its roster entry's endpoints, through the runner's allowlisting proxy; gates get no
     * network. Unset: full.
     */
    network: z.enum(['full', 'model-only']).optional(),
  })
  .strict();

/** Dollars per million tokens. */
const dollarsPerMillion = z.number().min(0).max(100_000);

/** One model's price (plan/cost.ts), dollars per million tokens; a cache price left out is unknown. */
export const priceEntrySchema = z.strictObject({
  input: dollarsPerMillion,
  output: dollarsPerMillion,
  /** Cached input read (a cache hit). */
  cacheRead: dollarsPerMillion.optional(),
  /** Input written to the cache. */
  cacheWrite: dollarsPerMillion.optional(),
});

export const blitzConfigSchema = z
  .object({
    runner: runnerSchema.default(() => runnerSchema.parse({})),
    roster: z.array(rosterEntrySchema).default([]),
    /** argv of a budget probe printing JSON (`preferMedium`, `park`). */
    budget: z.array(z.string().min(1)).min(1).optional(),
    /**
     * Prices per model name (as the roster entry's `model` or `--model` gives it), over the built-in ones
     * (plan/cost.ts `defaultPrices`): what attempts cost in money, and what `maxCost…` caps count.
     */
    prices: z.record(z.string().min(1), priceEntrySchema).optional(),
    /** Chat and phone targets, each with the events it wants (notify-schema.ts). */
    notify: notifyListSchema.default([]),
    /** The bot's address as people reach it (`https://blitz.example.com`): notifications link to the run's page there. */
    publicUrl: withJsonSchemaRule(
      z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
      httpUrlRule,
    ).optional(),
    /** Model notes shared across runs. */
    modelNotesPath: z.string().min(1).default('./data/models.md'),
    /** Review legs taking longer are abandoned. */
    reviewTimeoutSeconds: z.number().int().min(1).default(600),
    /** Shipping, for every repository this bot serves. */
    ship: z
      .object({
        /** Refuse to ship what no check verified (as a repository's `ship.requireChecks`): no green `build:` or `smoke:`, no ship. */
        requireChecks: z.boolean().default(false),
      })
      .strict()
      .default({ requireChecks: false }),
  })
  .strict()
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.roster.forEach((e, i) => {
      if (seen.has(e.name))
        ctx.addIssue({ code: 'custom', path: ['roster', i, 'name'], message: 'is a duplicate' });
      seen.add(e.name);
    });
  })
  .transform((c) => ({
    ...c,
    roster: c.roster.map((e, i) => ({ ...e, costRank: e.costRank ?? i })),
  }));
export type BlitzConfig = z.output<typeof blitzConfigSchema>;

/** `roster[1].command` → "roster entry 2, field command". */
export const describePath = (path: readonly PropertyKey[]): string => {
  if (path.length === 0) return 'the file';
  const words: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const p = path[i];
    const next = path[i + 1];
    if (typeof next === 'number') {
      words.push(`${String(p)} entry ${next + 1}`);
      i++;
    } else words.push(String(p));
  }
  return words.join(' → ');
};

/** The command lists, whose words are taken as the text written (`[git, log, -1]`). */
export const blitzConfigArgvPaths: readonly ArgvPath[] = [
  ['roster', '*', 'command'],
  ['roster', '*', 'resume'],
  ['roster', '*', 'args'],
  ['budget'],
];

// An unknown key is named on its own line, with the nearest known setting when it looks like a typo.
const problemLines = (issue: z.core.$ZodIssue): string[] => {
  if (issue.code !== 'unrecognized_keys') return [`${describePath(issue.path)}: ${issue.message}`];
  const known = knownKeysAt(blitzConfigSchema, issue.path);
  return issue.keys.map((key) => {
    const guess = closestMatch(key, known);
    return `${describePath([...issue.path, key])}: is not a setting blitz-bot knows${guess ? ` (did you mean \`${guess}\`?)` : ''}`;
  });
};

/** Parses the YAML text; throws `config_invalid` listing every problem with its field path. */
export const parseBlitzConfig = (text: string, source = 'blitz.config.yml'): BlitzConfig => {
  let raw: unknown;
  try {
    const doc = parseDocument(text, { uniqueKeys: true });
    if (doc.errors.length > 0) throw doc.errors[0];
    keepArgvWordsAsText(doc, blitzConfigArgvPaths);
    raw = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (err) {
    throw new AppError('config_invalid', `${source} is not valid YAML: ${(err as Error).message}`);
  }
  const parsed = blitzConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap(problemLines);
    throw new AppError('config_invalid', `${source} is invalid:\n- ${problems.join('\n- ')}`, { problems });
  }
  return parsed.data;
};

/**
 * Loads the operator file: explicit path (must exist), else `BLITZ_CONFIG`, else `./blitz.config.yml`
 * when present, else defaults.
 */
export const loadBlitzConfig = (path?: string, env: NodeJS.ProcessEnv = process.env): BlitzConfig => {
  const chosen = path ?? env.BLITZ_CONFIG;
  if (chosen) {
    const full = resolve(chosen);
    if (!existsSync(full)) throw new AppError('config_invalid', `Config file not found: ${full}`);
    return parseBlitzConfig(readFileSync(full, 'utf8'), full);
  }
  const fallback = resolve('blitz.config.yml');
  return existsSync(fallback)
    ? parseBlitzConfig(readFileSync(fallback, 'utf8'), fallback)
    : parseBlitzConfig('');
};

export { runnerBaseEnv } from './worker-env.ts';
