import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dotenvPath, loadDotenvFile, updateDotenvFile } from './dotenv.ts';

const dirs: string[] = [];
const tempFile = (text?: string): string => {
  const dir = mkdtempSync(join(tmpdir(), 'blitz-dotenv-'));
  dirs.push(dir);
  const path = join(dir, '.env');
  if (text !== undefined) writeFileSync(path, text);
  return path;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the .env file', () => {
  it('is ./.env unless BLITZ_ENV_FILE names another (a volume in a container)', () => {
    expect(dotenvPath({})).toBe('.env');
    expect(dotenvPath({ BLITZ_ENV_FILE: '  ' })).toBe('.env');
    expect(dotenvPath({ BLITZ_ENV_FILE: '/settings/.env' })).toBe('/settings/.env');
  });

  it('fills what the environment leaves unset or empty, and never overrides a value it sets', () => {
    const path = tempFile('APP_ID=123\nWEBHOOK_SECRET=from-file\nPRIVATE_KEY="-----BEGIN-----\\nkey"\n');
    // compose passes `APP_ID: ${APP_ID:-}`: present but empty, so the registration's id still counts.
    const env: Record<string, string | undefined> = { APP_ID: '', WEBHOOK_SECRET: 'from-env' };
    expect(loadDotenvFile(path, env)).toBe(true);
    expect(env).toEqual({
      APP_ID: '123',
      WEBHOOK_SECRET: 'from-env',
      PRIVATE_KEY: '-----BEGIN-----\nkey',
    });
    expect(loadDotenvFile(join(path, '..', 'missing.env'), env)).toBe(false);
  });

  it('keeps what the registration writes there for the next start to read', () => {
    const path = tempFile('# mine\nLOG_LEVEL=debug\nAPP_ID=1\n');
    updateDotenvFile(path, { APP_ID: '42', PRIVATE_KEY: 'line1\nline2', WEBHOOK_SECRET: 's3cret' });
    expect(readFileSync(path, 'utf8')).toBe(
      '# mine\nLOG_LEVEL=debug\nAPP_ID=42\nPRIVATE_KEY="line1\\nline2"\nWEBHOOK_SECRET=s3cret\n',
    );
    const env: Record<string, string | undefined> = {};
    loadDotenvFile(path, env);
    expect(env).toEqual({
      LOG_LEVEL: 'debug',
      APP_ID: '42',
      PRIVATE_KEY: 'line1\nline2',
      WEBHOOK_SECRET: 's3cret',
    });
  });
});
