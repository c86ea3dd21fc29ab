import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../errors.ts';
import { botPrivatePaths, configurationHints, loadEnv } from './env.ts';

const refused = (source: Record<string, string>): string => {
  try {
    loadEnv(source);
  } catch (err) {
    if (isAppError(err, 'config_invalid')) return err.message;
    throw err;
  }
  throw new Error('expected a config error');
};

describe('loadEnv', () => {
  it('an empty environment gives the embedded defaults and neither forge', () => {
    const env = loadEnv({});
    expect(env).toMatchObject({
      PORT: 3000,
      LOG_LEVEL: 'info',
      DATABASE_URL: 'sqlite:./data/blitz.db',
      BLITZ_PERMISSION: 'write',
      BLITZ_ALLOWED_BOTS: [],
      GHE_PROTOCOL: 'https',
    });
    expect(env.github).toBeUndefined();
    expect(env.gitea).toBeUndefined();
  });

  it('the bot runs jobs itself unless BLITZ_LOCAL_RUNNER is false; anything but true/false is refused by name', () => {
    expect(loadEnv({}).BLITZ_LOCAL_RUNNER).toBe('true');
    expect(loadEnv({ BLITZ_LOCAL_RUNNER: 'false', OLLAMA_HOST: 'http://127.0.0.1:11434' })).toMatchObject({
      BLITZ_LOCAL_RUNNER: 'false',
      OLLAMA_HOST: 'http://127.0.0.1:11434',
    });
    expect(refused({ BLITZ_LOCAL_RUNNER: 'no' })).toContain('BLITZ_LOCAL_RUNNER');
  });

  it('GitHub is on only with APP_ID, a key and WEBHOOK_SECRET; escaped newlines in PRIVATE_KEY become real ones', () => {
    expect(loadEnv({ APP_ID: '1', WEBHOOK_SECRET: 's' }).github).toBeUndefined();
    const env = loadEnv({ APP_ID: '12', PRIVATE_KEY: 'line1\\nline2', WEBHOOK_SECRET: 's' });
    expect(env.github).toEqual({ appId: '12', privateKey: 'line1\nline2', webhookSecret: 's' });
  });

  it('reads the key from PRIVATE_KEY_PATH, and names the variable when the file is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'blitz-env-'));
    try {
      writeFileSync(join(dir, 'key.pem'), 'PEM');
      const env = loadEnv({ APP_ID: '1', PRIVATE_KEY_PATH: join(dir, 'key.pem'), WEBHOOK_SECRET: 's' });
      expect(env.github?.privateKey).toBe('PEM');
      expect(refused({ PRIVATE_KEY_PATH: join(dir, 'nope.pem') })).toMatch(/^PRIVATE_KEY_PATH: cannot read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads every secret from its *_FILE (trailing newline trimmed), so the value is not in the environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'blitz-env-'));
    try {
      const file = (name: string, text: string) => {
        writeFileSync(join(dir, name), text);
        return join(dir, name);
      };
      const env = loadEnv({
        GITEA_URL: 'https://gitea.example',
        GITEA_TOKEN_FILE: file('gitea-token', 'tok-123\n'),
        GITEA_PUSH_TOKEN_FILE: file('gitea-push-token', 'push-456\n'),
        GITEA_WEBHOOK_SECRET_FILE: file('gitea-secret', 'hook-secret\r\n'),
        WEBHOOK_SECRET_FILE: file('gh-secret', 'gh secret with spaces \n'),
        STATUS_TOKEN_FILE: file('status', 'status-token-0123456789\n'),
        BLITZ_RUNNER_TOKEN_FILE: file('runner', 'runner-token\n\n'),
      });
      expect(env.gitea).toMatchObject({
        token: 'tok-123',
        pushToken: 'push-456',
        webhookSecret: 'hook-secret',
      });
      expect(env.WEBHOOK_SECRET).toBe('gh secret with spaces ');
      expect(env.STATUS_TOKEN).toBe('status-token-0123456789');
      // Only one trailing newline goes: a value is kept exactly as written otherwise.
      expect(env.BLITZ_RUNNER_TOKEN).toBe('runner-token\n');
      // The file's value is still checked like the variable's.
      expect(refused({ STATUS_TOKEN_FILE: file('short', 'short\n') })).toMatch(
        /^STATUS_TOKEN: must be at least 16/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a secret given both as a variable and as a file, and a file it cannot read, naming the variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'blitz-env-'));
    try {
      writeFileSync(join(dir, 't'), 'x');
      expect(refused({ GITEA_TOKEN: 'x', GITEA_TOKEN_FILE: join(dir, 't') })).toBe(
        'GITEA_TOKEN and GITEA_TOKEN_FILE are both set: set one of them.',
      );
      expect(refused({ WEBHOOK_SECRET_FILE: join(dir, 'missing') })).toMatch(
        /^WEBHOOK_SECRET_FILE: cannot read/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Gitea is on with URL, token and secret; the trailing slash of GITEA_URL is dropped', () => {
    const env = loadEnv({
      GITEA_URL: 'https://gitea.example.com/',
      GITEA_TOKEN: 't',
      GITEA_WEBHOOK_SECRET: 'w',
      GITEA_BOT_LOGIN: 'blitz',
    });
    expect(env.gitea).toEqual({
      url: 'https://gitea.example.com',
      token: 't',
      webhookSecret: 'w',
      botLogin: 'blitz',
    });
  });

  it('splits BLITZ_ALLOWED_BOTS on commas and trims the names', () => {
    expect(loadEnv({ BLITZ_ALLOWED_BOTS: ' renovate[bot], ,dependabot ' }).BLITZ_ALLOWED_BOTS).toEqual([
      'renovate[bot]',
      'dependabot',
    ]);
  });

  it.each([
    ['a port that is not a number', { PORT: 'eighty' }, /^PORT:/],
    ['a port out of range', { PORT: '70000' }, /^PORT:/],
    ['an unknown log level', { LOG_LEVEL: 'loud' }, /^LOG_LEVEL:/],
    ['a permission that is not a level', { BLITZ_PERMISSION: 'owner' }, /^BLITZ_PERMISSION:/],
    ['a GHE protocol other than http(s)', { GHE_PROTOCOL: 'ftp' }, /^GHE_PROTOCOL:/],
  ])('refuses %s, naming the variable', (_what, source, message) => {
    expect(refused(source)).toMatch(message);
  });

  it('hints name exactly what is missing for each forge', () => {
    const hints = configurationHints(loadEnv({ APP_ID: '1', GITEA_URL: 'https://g' }));
    expect(hints[0]).toContain('set PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET');
    expect(hints[0]).not.toContain('APP_ID,');
    expect(hints[1]).toContain('set GITEA_TOKEN, GITEA_WEBHOOK_SECRET');
    expect(configurationHints(loadEnv({ APP_ID: '1', PRIVATE_KEY: 'k', WEBHOOK_SECRET: 's' }))).toHaveLength(
      1,
    );
  });
});

describe('botPrivatePaths', () => {
  it('names the data dir, the SQLite file, .env, the config and every secret file, made absolute', () => {
    const dir = mkdtempSync(join(tmpdir(), 'blitz-private-'));
    try {
      const token = join(dir, 'runner-token');
      writeFileSync(token, 'rt_secret\n');
      const source = { BLITZ_RUNNER_TOKEN_FILE: token, BLITZ_CONFIG: 'conf/blitz.yml' };
      const paths = botPrivatePaths(loadEnv(source), source);
      for (const p of [token, resolve('conf/blitz.yml'), resolve('.env'), resolve('data/blitz.db')])
        expect(paths).toContain(p);
      expect(paths.every((p) => p.startsWith('/'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the .env that BLITZ_ENV_FILE moves onto a volume, instead of ./.env', () => {
    const source = { BLITZ_ENV_FILE: '/settings/.env' };
    const paths = botPrivatePaths(loadEnv(source), source);
    expect(paths).toContain('/settings/.env');
    expect(paths).not.toContain(resolve('.env'));
  });
});
