// compose.yaml runs either forge or both, as ./.env and ./secrets say, and keeps /probot's registration
// across a recreate. No container engine runs here, so each bot replica is given what its container
// would get: compose's interpolation of its environment over a ./.env, and its mounts as directories
// (./secrets, one per named volume). The bot's own start-up code (the .env file, then loadEnv) then
// says which forges are on.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDotenvFile, updateDotenvFile } from '../../src/config/dotenv.ts';
import { type Env, loadEnv } from '../../src/config/env.ts';
import {
  botServices,
  type ComposeService,
  compose,
  containerEnv,
  hostPathOf,
} from '../support/compose-file.ts';

const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIfake\n-----END RSA PRIVATE KEY-----\n';
const statusToken = 'status-token-0123456789';

let dirs: { project: string; volumes: string };
beforeEach(() => {
  const base = mkdtempSync(join(tmpdir(), 'blitz-compose-'));
  dirs = { project: join(base, 'project'), volumes: join(base, 'volumes') };
  for (const v of Object.keys(compose.volumes)) mkdirSync(join(dirs.volumes, v), { recursive: true });
  mkdirSync(join(dirs.project, 'secrets'), { recursive: true });
});
afterEach(() => rmSync(join(dirs.project, '..'), { recursive: true, force: true }));

const secrets = (files: Record<string, string>) => {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dirs.project, 'secrets', name), text);
};

/** A replica's start: its container's environment, each file it names mapped to where its mount puts it. */
const start = (s: ComposeService, dotenv: Record<string, string>): Env => {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(containerEnv(s, { POSTGRES_PASSWORD: 'pw', ...dotenv }))) {
    const file = (key.endsWith('_FILE') || key === 'PRIVATE_KEY_PATH') && value !== '';
    env[key] = file ? (hostPathOf(s, value, dirs) ?? value) : value;
  }
  // main.ts: the .env file first (BLITZ_ENV_FILE, on its volume), then the environment is parsed.
  expect(env.BLITZ_ENV_FILE?.startsWith(dirs.volumes)).toBe(true);
  loadDotenvFile(env.BLITZ_ENV_FILE, env);
  return loadEnv(env);
};

const [[, botA], [, botB]] = botServices as [[string, ComposeService], [string, ComposeService]];

describe('compose.yaml and the forges', () => {
  it('runs Gitea alone: GITEA_URL in ./.env and its two files', () => {
    secrets({ status_token: statusToken, gitea_token: 'gt-123\n', gitea_webhook_secret: 'gws' });
    const env = start(botA, { GITEA_URL: 'https://gitea.example/' });
    expect(env.gitea).toEqual({ url: 'https://gitea.example', token: 'gt-123', webhookSecret: 'gws' });
    expect(env.github).toBeUndefined();
    expect(env.STATUS_TOKEN).toBe(statusToken);
  });

  it('runs a GitHub App alone: APP_ID in ./.env, its key and webhook secret as files', () => {
    secrets({ status_token: statusToken, github_private_key: pem, github_webhook_secret: 'hws' });
    const env = start(botB, { APP_ID: '4242', GHE_HOST: 'ghe.example.com' });
    expect(env.github).toEqual({ appId: '4242', privateKey: pem, webhookSecret: 'hws' });
    expect(env.GHE_HOST).toBe('ghe.example.com');
    expect(env.gitea).toBeUndefined();
  });

  it('runs both at once, and a forge whose variable is set without its files stops the start, named', () => {
    secrets({
      status_token: statusToken,
      gitea_token: 'gt',
      gitea_webhook_secret: 'gws',
      github_private_key: pem,
      github_webhook_secret: 'hws',
    });
    const env = start(botA, { GITEA_URL: 'https://gitea.example', APP_ID: '7' });
    expect(env.gitea?.token).toBe('gt');
    expect(env.github?.appId).toBe('7');
    rmSync(join(dirs.project, 'secrets', 'github_webhook_secret'));
    expect(() => start(botA, { APP_ID: '7' })).toThrow(/WEBHOOK_SECRET_FILE: cannot read/);
  });

  it('keeps /probot’s registration on the shared volume: a recreated replica and the other one read it', () => {
    secrets({ status_token: statusToken, gitea_token: 'gt', gitea_webhook_secret: 'gws' });
    const dotenv = { POSTGRES_PASSWORD: 'pw', GITEA_URL: 'https://gitea.example' };
    expect(start(botA, dotenv).github).toBeUndefined();
    // What the registration on bot-a writes (completeAppRegistration → updateDotenvFile), at the path
    // its environment names.
    const written = hostPathOf(botA, containerEnv(botA, dotenv).BLITZ_ENV_FILE ?? '', dirs);
    expect(written).toBe(join(dirs.volumes, 'bot-settings', '.env'));
    updateDotenvFile(written!, { APP_ID: '99', PRIVATE_KEY: pem, WEBHOOK_SECRET: 'registered' });
    // A named volume outlives the container: a new bot-a, and bot-b, start with the app.
    for (const bot of [botA, botB])
      expect(start(bot, dotenv).github).toEqual({
        appId: '99',
        privateKey: pem,
        webhookSecret: 'registered',
      });
    expect(start(botB, dotenv).gitea?.token).toBe('gt');
  });
});
