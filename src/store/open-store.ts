// Chooses the store engine from DATABASE_URL: `sqlite:PATH` / `sqlite::memory:` (the embedded
// default) or `postgres://…` / `postgresql://…` (several replicas on one database; an optional
// `?schema=NAME` puts every table in that schema). Both engines implement the same ports.
// The PostgreSQL modules (pg and its pools) are imported only when DATABASE_URL names PostgreSQL.
import { AppError } from '../errors.ts';
import type { AttemptLedger } from '../runner/types.ts';
import type { RunStore } from './run-store.ts';
import type { RunnerRegistry } from './runner-tokens.ts';
import { openSqliteRunnerRegistry } from './runner-tokens-sqlite.ts';
import { openSqliteRunStore } from './sqlite-run-store.ts';
import { openSqliteStore } from './sqlite-store.ts';
import type { Store } from './types.ts';

export type StoreLocation =
  | { engine: 'sqlite'; path: string }
  | { engine: 'postgres'; url: string; schema?: string };

const postgresExample = 'postgres://user:password@host:5432/database';

const parsePostgresUrl = (url: string): StoreLocation => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The URL is not repeated: it may hold a password.
    throw new AppError(
      'config_invalid',
      `DATABASE_URL: not a valid Postgres URL; expected ${postgresExample}`,
    );
  }
  if (parsed.hostname === '' && !parsed.searchParams.has('host')) {
    throw new AppError(
      'config_invalid',
      `DATABASE_URL: the Postgres URL has no host; expected ${postgresExample}`,
    );
  }
  const schema = parsed.searchParams.get('schema') ?? undefined;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new AppError('config_invalid', 'DATABASE_URL: schema= must be a plain lower-case name, e.g. blitz');
  }
  parsed.searchParams.delete('schema');
  return { engine: 'postgres', url: parsed.toString(), ...(schema ? { schema } : {}) };
};

export const parseDatabaseUrl = (url: string): StoreLocation => {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (path === '')
      throw new AppError('config_invalid', 'DATABASE_URL: sqlite: needs a path, e.g. sqlite:./data/blitz.db');
    return { engine: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(url)) return parsePostgresUrl(url);
  throw new AppError(
    'config_invalid',
    `DATABASE_URL: expected sqlite:PATH (e.g. sqlite:./data/blitz.db) or ${postgresExample}`,
  );
};

/** `PostgreSQL` or `SQLite`: the engine DATABASE_URL names, as a person reads it in a log or notice. */
export const storeEngineName = (url: string): string =>
  parseDatabaseUrl(url).engine === 'postgres' ? 'PostgreSQL' : 'SQLite';

const pgOptions = (l: { schema?: string }) => (l.schema ? { schema: l.schema } : {});

/** The intake Store; a Postgres server that cannot be reached fails here with a `store_error`. */
export const openStore = async (url: string): Promise<Store> => {
  const location = parseDatabaseUrl(url);
  if (location.engine === 'postgres') {
    const { openPostgresStore } = await import('./postgres-store.ts');
    return openPostgresStore(location.url, pgOptions(location));
  }
  return openSqliteStore(location.path);
};

/** The RunStore with its attempt ledger, on the same database as `openStore(url)`. */
export const openRunStore = async (
  url: string,
  opts: { now?: () => Date } = {},
): Promise<RunStore & { ledger: AttemptLedger }> => {
  const location = parseDatabaseUrl(url);
  if (location.engine === 'postgres') {
    const { openPostgresRunStore } = await import('./postgres-run-store.ts');
    return openPostgresRunStore(location.url, { ...pgOptions(location), ...opts });
  }
  return openSqliteRunStore(location.path, opts);
};

/** The runner registry (tokens, adverts, report receipts), on the same database as `openStore(url)`. */
export const openRunnerRegistry = async (
  url: string,
  opts: { now?: () => Date } = {},
): Promise<RunnerRegistry> => {
  const location = parseDatabaseUrl(url);
  if (location.engine === 'postgres') {
    const { openPostgresRunnerRegistry } = await import('./postgres-runner-registry.ts');
    return openPostgresRunnerRegistry(location.url, { ...pgOptions(location), ...opts });
  }
  return openSqliteRunnerRegistry(location.path, opts);
};
