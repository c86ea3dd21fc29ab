// Chooses the store engine from DATABASE_URL: `sqlite:PATH` or `sqlite::memory:` today; Postgres URLs
// are recognised and refused in plain words until that engine exists.
import { AppError } from '../errors.ts';
import { openSqliteStore } from './sqlite-store.ts';
import type { Store } from './types.ts';

export type StoreLocation = { engine: 'sqlite'; path: string };

export const parseDatabaseUrl = (url: string): StoreLocation => {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (path === '')
      throw new AppError('config_invalid', 'DATABASE_URL: sqlite: needs a path, e.g. sqlite:./data/blitz.db');
    return { engine: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    throw new AppError(
      'config_invalid',
      'DATABASE_URL: Postgres is not supported yet; use sqlite:PATH (default sqlite:./data/blitz.db)',
    );
  }
  throw new AppError('config_invalid', 'DATABASE_URL: expected sqlite:PATH (e.g. sqlite:./data/blitz.db)');
};

export const openStore = async (url: string): Promise<Store> => {
  const location = parseDatabaseUrl(url);
  return openSqliteStore(location.path);
};
