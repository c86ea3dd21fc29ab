// What of the runner's own environment reaches a worker (and git, builds, reviewer CLIs): a fixed
// allowlist (PATH, HOME, the locale, the agent providers' variables), the names and `PREFIX_*`
// patterns of `runner.passEnv` (proxies, CA bundles, cloud credentials by default), and a roster
// entry's `env`, whose values are literals or `fromEnv: NAME` (read from the runner's environment
// when the worker starts, so no secret sits in the config file). The bot's own secrets never pass:
// config naming one is refused when it is parsed, and they are dropped here whatever the config says.
import { z } from 'zod';
import { secretFileVariables } from './env.ts';
import { withJsonSchemaRule } from './json-schema-rules.ts';

const WORKER_ENV_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LC_ALL',
  'TZ',
  'TMPDIR',
  'SHELL',
  'TERM',
]);
// Agent CLIs need their own provider settings.
const WORKER_ENV_PREFIX =
  /^(?:LC_|XDG_|ANTHROPIC_|CLAUDE_|OPENAI_|CODEX_|OPENCODE_|AIDER_|OLLAMA_|OPENROUTER_|GEMINI_|QWEN_|MISTRAL_|DEEPSEEK_|GROQ_)/;

/**
 * The bot's own secrets and settings that lead to them: never given to a worker. `<NAME>_FILE`
 * variants too (env.ts reads secrets from files).
 */
export const botSecretNames: readonly string[] = [
  ...secretFileVariables,
  'PRIVATE_KEY',
  'PRIVATE_KEY_PATH',
  'DATABASE_URL',
  'PGPASSWORD',
  'GITHUB_CLIENT_SECRET',
].flatMap((n) => [n, `${n}_FILE`]);

/**
 * `runner.passEnv` unset: proxies (both spellings), CA bundles, and the cloud providers' variables
 * (Bedrock's AWS_*, Vertex's and Gemini's GOOGLE_*, Azure's AZURE_*, Qwen's DASHSCOPE_*).
 */
export const defaultPassEnv: readonly string[] = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'AWS_*',
  'GOOGLE_*',
  'CLOUDSDK_*',
  'AZURE_*',
  'DASHSCOPE_*',
];

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}\*?$/;

/** The bot secrets a passEnv name or `PREFIX_*` pattern would let through. */
export const secretsCoveredBy = (pattern: string): string[] =>
  pattern.endsWith('*')
    ? botSecretNames.filter((s) => s.startsWith(pattern.slice(0, -1)))
    : botSecretNames.filter((s) => s === pattern);

const refuseSecrets = (what: string) => (value: string, ctx: z.RefinementCtx) => {
  const covered = secretsCoveredBy(value);
  if (covered.length > 0)
    ctx.addIssue({
      code: 'custom',
      message: `${what} ${value} would give workers the bot's own secret ${covered.slice(0, 3).join(', ')}: a worker never gets the bot's credentials; use a variable of its own`,
    });
};

/** One `runner.passEnv` item: a variable name, or a prefix ending in `*` (`AWS_*`). */
export const passEnvItemSchema = withJsonSchemaRule(
  z
    .string()
    .regex(PATTERN, 'must be a variable name or a prefix ending in * (like AWS_*)')
    .superRefine(refuseSecrets('passEnv')),
  { not: { enum: [...botSecretNames] } },
);

/** A roster `env` value: a literal, or `{ fromEnv: NAME }` read from the runner's environment. */
export const envValueSchema = z.union([
  z.string(),
  z.strictObject({
    /** The variable of the runner's environment whose value the worker gets. */
    fromEnv: withJsonSchemaRule(
      z.string().regex(NAME, 'must be a variable name').superRefine(refuseSecrets('fromEnv')),
      { not: { enum: [...botSecretNames] } },
    ),
  }),
]);
export type EnvValue = z.infer<typeof envValueSchema>;

export const entryEnvSchema = z.record(z.string().regex(NAME, 'must be a variable name'), envValueSchema);

const matches = (name: string, pattern: string): boolean =>
  pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;

/** The environment the runner gives git and workers: an allowlist of its own, and `runner.passEnv`. */
export const runnerBaseEnv = (
  passEnv: readonly string[] = defaultPassEnv,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || botSecretNames.includes(k)) continue;
    if (WORKER_ENV_NAMES.has(k) || WORKER_ENV_PREFIX.test(k) || passEnv.some((p) => matches(k, p)))
      out[k] = v;
  }
  return out;
};

/**
 * A roster entry's `env` with each `fromEnv` read from `source` (the runner's environment). A named
 * variable that is unset is left out and listed in `missing` (doctor reports it).
 */
export const resolveEntryEnv = (
  env: Record<string, EnvValue> | undefined,
  source: NodeJS.ProcessEnv = process.env,
): { env: Record<string, string>; missing: string[] } => {
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const [k, v] of Object.entries(env ?? {})) {
    if (typeof v === 'string') out[k] = v;
    else if (botSecretNames.includes(v.fromEnv)) missing.push(v.fromEnv);
    else if (source[v.fromEnv] !== undefined) out[k] = source[v.fromEnv]!;
    else missing.push(v.fromEnv);
  }
  return { env: out, missing };
};

/** The entry's environment as the worker gets it (see resolveEntryEnv). */
export const entryEnv = (env: Record<string, EnvValue> | undefined, source?: NodeJS.ProcessEnv) =>
  resolveEntryEnv(env, source).env;
