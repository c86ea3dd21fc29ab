// The operator's environment: the ONLY module that reads process.env. Parsed once with zod at start;
// everything else receives the typed `Env` object. Probot's variable names are kept as they are so a
// Probot user recognises them.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { AppError } from '../errors.ts';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

const commaList = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );

export const envSchema = z.object({
  /** TCP port the one HTTP server listens on. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface to bind; unset listens on all interfaces. */
  HOST: optionalString,
  /** pino level: fatal, error, warn, info, debug, trace or silent. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `json` (one pino line per entry) or `pretty` (coloured lines); unset: pretty on a terminal, json otherwise. */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  /** Where state lives: `sqlite:PATH` (file, the default), `sqlite::memory:` (tests), or
   *  `postgres://user:password@host:5432/db[?schema=NAME]` (also `postgresql://`) for several replicas. */
  DATABASE_URL: z.string().default('sqlite:./data/blitz.db'),
  /** Directory for the bot's own files beside the database: the webhook spool (`spool/`). Default: the
   *  SQLite file's directory, or `./data` with Postgres. */
  BLITZ_DATA_DIR: optionalString,
  /** Webhook deliveries the spool holds while the store is down; past it webhooks are answered 503. */
  BLITZ_SPOOL_MAX_DELIVERIES: z.coerce.number().int().min(1).default(10_000),
  /** Megabytes of webhook bodies the spool holds while the store is down; past it webhooks are answered 503. */
  BLITZ_SPOOL_MAX_MB: z.coerce.number().int().min(1).default(100),
  /** Seconds the store may stay unavailable before the notify targets are told (and told again when it is back). */
  BLITZ_STORE_OUTAGE_NOTIFY_SECONDS: z.coerce.number().int().min(1).default(60),
  /** GitHub App id (Probot convention). Unset: the GitHub side stays off and the setup page is offered. */
  APP_ID: optionalString,
  /** GitHub App private key, PEM text; `\n` escapes are accepted (Probot convention). */
  PRIVATE_KEY: optionalString,
  /** Path to the GitHub App private key PEM file, read when PRIVATE_KEY is unset. */
  PRIVATE_KEY_PATH: optionalString,
  /** Secret GitHub signs webhooks with (X-Hub-Signature-256). */
  WEBHOOK_SECRET: optionalString,
  /** GitHub Enterprise Server host name, e.g. `ghe.example.com`; unset means github.com. */
  GHE_HOST: optionalString,
  /** Protocol for GHE_HOST: https (default) or http. */
  GHE_PROTOCOL: z.enum(['https', 'http']).default('https'),
  /** smee.io (or similar) channel used in development to relay webhooks to this machine. */
  WEBHOOK_PROXY_URL: optionalString,
  /**
   * `true` when the bot is reached only through a reverse proxy (TLS terminated there): the URLs /probot
   * gives GitHub follow its `X-Forwarded-Proto` and `X-Forwarded-Host`. Off (the default), those
   * headers are ignored, since any client could send them.
   */
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  /** The bot's own GitHub login (e.g. `blitz-bot[bot]`); only used when GitHub cannot be asked (`GET /app`) at start. */
  BOT_LOGIN: optionalString,
  /** Base URL of the Gitea instance, e.g. `https://gitea.example.com`. */
  GITEA_URL: optionalString,
  /** Gitea access token of the bot account (API calls). */
  GITEA_TOKEN: optionalString,
  /**
   * Gitea token the runner pushes with (scope `write:repository` only), so the bot's own token, which
   * can also comment, label and merge, never goes to git; unset, GITEA_TOKEN pushes.
   */
  GITEA_PUSH_TOKEN: optionalString,
  /** Secret Gitea signs webhooks with (X-Gitea-Signature). */
  GITEA_WEBHOOK_SECRET: optionalString,
  /** Login of the Gitea bot account; only used when Gitea cannot be asked (`GET /user`) at start. */
  GITEA_BOT_LOGIN: optionalString,
  /** Least repository permission a commenter needs for a command to run: read, write or admin. */
  BLITZ_PERMISSION: z.enum(['read', 'write', 'admin']).default('write'),
  /** Comma-separated logins of other bots whose commands are honoured (still subject to permission). */
  BLITZ_ALLOWED_BOTS: commaList,
  /** Path to the optional operator config file (roster, runner, limits, notify). */
  BLITZ_CONFIG: optionalString,
  /**
   * The `.env` file read at start and written by the /probot registration (default `./.env`); in a
   * container, a path on a volume every replica mounts, so the registration survives a recreate.
   */
  BLITZ_ENV_FILE: optionalString,
  /** Ollama server (e.g. `http://127.0.0.1:11434`) for roster entries with `tool: ollama` (review legs). */
  OLLAMA_HOST: optionalString,
  /** `false` leaves every job to `blitz-bot runner` agents on other hosts; the bot runs none itself. */
  BLITZ_LOCAL_RUNNER: z.enum(['true', 'false']).default('true'),
  /** Token for the status pages (runs, DAG, attempts, stats); unset turns them off. At least 16 characters. */
  STATUS_TOKEN: optionalString.refine((v) => v === undefined || v.length >= 16, {
    message: 'must be at least 16 characters (or unset to turn the status pages off)',
  }),
  /** The token `blitz-bot runner` presents to the bot (instead of `--token`, which `ps` shows). */
  BLITZ_RUNNER_TOKEN: optionalString,
});

/**
 * Secrets that can be given as a file instead (`<NAME>_FILE=/run/secrets/…`), so the value is not in
 * the bot's environment, where every process of its user can read it (`/proc/<pid>/environ`).
 * PRIVATE_KEY has Probot's PRIVATE_KEY_PATH.
 */
export const secretFileVariables = [
  'GITEA_TOKEN',
  'GITEA_PUSH_TOKEN',
  'GITEA_WEBHOOK_SECRET',
  'WEBHOOK_SECRET',
  'STATUS_TOKEN',
  'BLITZ_RUNNER_TOKEN',
] as const;

/** The environment with each `<NAME>_FILE` read into `<NAME>` (one trailing newline trimmed). */
const withSecretFiles = (
  source: Record<string, string | undefined>,
  read: (path: string) => string,
): Record<string, string | undefined> => {
  const out = { ...source };
  for (const name of secretFileVariables) {
    const file = source[`${name}_FILE`]?.trim();
    if (!file) continue;
    if (source[name]?.trim()) {
      throw new AppError('config_invalid', `${name} and ${name}_FILE are both set: set one of them.`, {
        variable: `${name}_FILE`,
      });
    }
    let text: string;
    try {
      text = read(file);
    } catch (cause) {
      throw new AppError(
        'config_invalid',
        `${name}_FILE: cannot read ${file}`,
        { variable: `${name}_FILE` },
        { cause },
      );
    }
    out[name] = text.replace(/\r?\n$/, '');
  }
  return out;
};

export type RawEnv = z.input<typeof envSchema>;

export interface GithubAppConfig {
  appId: string;
  privateKey: string;
  webhookSecret: string;
}

export type Env = z.output<typeof envSchema> & {
  /** BLITZ_DATA_DIR, or its default (the SQLite file's directory, else `./data`). */
  dataDir: string;
  /** Present only when APP_ID, a private key and WEBHOOK_SECRET are all set. */
  github?: GithubAppConfig;
  /** Present only when GITEA_URL, GITEA_TOKEN and GITEA_WEBHOOK_SECRET are all set. */
  gitea?: { url: string; token: string; pushToken?: string; webhookSecret: string; botLogin?: string };
};

const readPrivateKey = (raw: z.output<typeof envSchema>): string | undefined => {
  if (raw.PRIVATE_KEY) return raw.PRIVATE_KEY.replace(/\\n/g, '\n');
  if (!raw.PRIVATE_KEY_PATH) return undefined;
  try {
    return readFileSync(raw.PRIVATE_KEY_PATH, 'utf8');
  } catch (cause) {
    throw new AppError(
      'config_invalid',
      `PRIVATE_KEY_PATH: cannot read ${raw.PRIVATE_KEY_PATH}`,
      {},
      { cause },
    );
  }
};

/** The SQLite file's directory (`sqlite:data/blitz.db` → `data`), else `./data`. */
const defaultDataDir = (databaseUrl: string): string => {
  if (!databaseUrl.startsWith('sqlite:')) return './data';
  const file = databaseUrl.slice('sqlite:'.length).replace(/^\/\//, '');
  return file !== '' && file !== ':memory:' ? dirname(file) : './data';
};

/** Parse an environment (process.env by default). Throws AppError `config_invalid` naming the variable. */
export const loadEnv = (
  source: Record<string, string | undefined> = process.env,
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): Env => {
  const parsed = envSchema.safeParse(withSecretFiles(source, read));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = issue?.path.join('.') ?? 'environment';
    throw new AppError('config_invalid', `${name}: ${issue?.message ?? 'invalid'}`, { variable: name });
  }
  const raw = parsed.data;
  const env: Env = { ...raw, dataDir: raw.BLITZ_DATA_DIR ?? defaultDataDir(raw.DATABASE_URL) };
  const privateKey = readPrivateKey(raw);
  if (raw.APP_ID && privateKey && raw.WEBHOOK_SECRET) {
    env.github = { appId: raw.APP_ID, privateKey, webhookSecret: raw.WEBHOOK_SECRET };
  }
  if (raw.GITEA_URL && raw.GITEA_TOKEN && raw.GITEA_WEBHOOK_SECRET) {
    env.gitea = {
      url: raw.GITEA_URL.replace(/\/+$/, ''),
      token: raw.GITEA_TOKEN,
      ...(raw.GITEA_PUSH_TOKEN ? { pushToken: raw.GITEA_PUSH_TOKEN } : {}),
      webhookSecret: raw.GITEA_WEBHOOK_SECRET,
      ...(raw.GITEA_BOT_LOGIN ? { botLogin: raw.GITEA_BOT_LOGIN } : {}),
    };
  }
  return env;
};

/** Plain-words hints for what is missing, logged at start so an operator knows what to set. */
export const configurationHints = (env: Env): string[] => {
  const hints: string[] = [];
  if (!env.github) {
    const missing = [
      env.APP_ID ? undefined : 'APP_ID',
      env.PRIVATE_KEY || env.PRIVATE_KEY_PATH ? undefined : 'PRIVATE_KEY or PRIVATE_KEY_PATH',
      env.WEBHOOK_SECRET ? undefined : 'WEBHOOK_SECRET',
    ].filter(Boolean);
    hints.push(
      `GitHub is off: set ${missing.join(', ')} (or open /probot on this server to register the GitHub App from app.yml).`,
    );
  }
  if (!env.gitea) {
    const missing = [
      env.GITEA_URL ? undefined : 'GITEA_URL',
      env.GITEA_TOKEN ? undefined : 'GITEA_TOKEN',
      env.GITEA_WEBHOOK_SECRET ? undefined : 'GITEA_WEBHOOK_SECRET',
    ].filter(Boolean);
    hints.push(
      `Gitea is off: set ${missing.join(', ')}, then add a webhook on the repository pointing to /api/gitea/webhooks with that secret.`,
    );
  }
  return hints;
};

/**
 * The bot's own files no sandboxed worker or gate may see, wherever they lie: its data directory, the
 * SQLite database, `.env` (BLITZ_ENV_FILE), the operator config, the GitHub App key and every `<NAME>_FILE` secret.
 */
export const botPrivatePaths = (
  env: Env,
  source: Record<string, string | undefined> = process.env,
): string[] => {
  const db = env.DATABASE_URL.startsWith('sqlite:') ? env.DATABASE_URL.slice('sqlite:'.length) : '';
  const files = [
    env.dataDir,
    db && db !== ':memory:' ? db.replace(/^\/\//, '') : '',
    env.BLITZ_ENV_FILE ?? '.env',
    env.BLITZ_CONFIG ?? 'blitz.config.yml',
    env.PRIVATE_KEY_PATH ?? '',
    ...secretFileVariables.map((name) => source[`${name}_FILE`]?.trim() ?? ''),
  ];
  return [...new Set(files.filter(Boolean).map((f) => resolve(f)))];
};
