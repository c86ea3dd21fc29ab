import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../errors.ts';
import { loadBlitzConfig, parseBlitzConfig, runnerBaseEnv } from './blitz-config.ts';
import { resolveEntryEnv } from './worker-env.ts';

describe('blitz.config.yml', () => {
  it('gives the documented defaults for an empty file', () => {
    const c = parseBlitzConfig('');
    expect(c.runner).toEqual({
      workspace: './data/workspace',
      maxSessions: 2,
      stallCheckSeconds: 90,
      minFreeDiskMb: 100,
      attemptTimeoutMinutes: 60,
      buildConcurrency: 1,
      maxNudges: 6,
      retries: 2,
    });
    expect(c.roster).toEqual([]);
    expect(c.modelNotesPath).toBe('./data/models.md');
  });

  it('reads a roster and defaults costRank to the list position', () => {
    const c = parseBlitzConfig(`
roster:
  - name: sonnet
    tool: claude
    model: sonnet
    roles: [blitz, fleet, plan]
    tiers: [execution, design]
  - name: my-agent
    tool: custom
    command: [node, ./agent.js, "{prompt_file}"]
    resume: [node, ./agent.js, --resume, "{prompt_file}"]
    roles: [blitz, review]
    tiers: [execution]
    costRank: 7
`);
    expect(c.roster.map((e) => [e.name, e.costRank])).toEqual([
      ['sonnet', 0],
      ['my-agent', 7],
    ]);
  });

  it('names the field path in words when a custom entry lacks its command', () => {
    try {
      parseBlitzConfig('roster:\n  - {name: a, tool: custom, roles: [blitz], tiers: [execution]}\n');
      expect.unreachable();
    } catch (err) {
      expect(isAppError(err, 'config_invalid')).toBe(true);
      expect((err as Error).message).toContain('roster entry 1 → command: is required when tool is custom');
    }
  });

  it('rejects an ollama entry that would author code', () => {
    expect(() =>
      parseBlitzConfig(
        'roster:\n  - {name: o, tool: ollama, model: qwen, roles: [blitz], tiers: [execution]}\n',
      ),
    ).toThrow(/roster entry 1 → roles: an ollama entry can only have the review role/);
  });

  it('rejects a tool it does not know, an unknown key and a bad number, all at once', () => {
    expect(() =>
      parseBlitzConfig(
        'runner: {maxSessions: 0, typo: 1}\nroster:\n  - {name: x, tool: gpt, roles: [blitz], tiers: [execution]}\n',
      ),
    ).toThrow(/runner → maxSessions[\s\S]*runner[\s\S]*typo[\s\S]*roster entry 1 → tool/);
  });

  it('takes roster commands and the budget probe as the words written, numbers and booleans too', () => {
    const c = parseBlitzConfig(
      `
runner: {maxSessions: 3}
budget: [./probe.sh, --days, 7, --strict, true]
roster:
  - name: local
    tool: custom
    command: [node, agent.js, --temperature, 0.50, "{prompt_file}"]
    resume: [node, agent.js, --resume, -1]
  - name: aider
    tool: aider
    args: [--map-tokens, 1024, --yes-always, true]
    roles: [fleet]
    tiers: [execution]
`.replace('    resume', '    roles: [blitz]\n    tiers: [execution]\n    resume'),
    );
    expect(c.budget).toEqual(['./probe.sh', '--days', '7', '--strict', 'true']);
    expect(c.roster[0]!.command).toEqual(['node', 'agent.js', '--temperature', '0.50', '{prompt_file}']);
    expect(c.roster[0]!.resume).toEqual(['node', 'agent.js', '--resume', '-1']);
    expect(c.roster[1]!.args).toEqual(['--map-tokens', '1024', '--yes-always', 'true']);
    expect(c.runner.maxSessions).toBe(3);
  });

  it('names an unknown key and suggests the setting it looks like, at any depth', () => {
    try {
      parseBlitzConfig(
        'runner: {maxSesions: 3}\nrostr: []\nroster:\n  - {name: a, tool: claude, roles: [blitz], tiers: [execution], modle: x}\nzzz: 1\n',
      );
      expect.unreachable();
    } catch (err) {
      const message = (err as Error).message;
      expect(message).toContain(
        'runner → maxSesions: is not a setting blitz-bot knows (did you mean `maxSessions`?)',
      );
      expect(message).toContain('rostr: is not a setting blitz-bot knows (did you mean `roster`?)');
      expect(message).toContain(
        'roster entry 1 → modle: is not a setting blitz-bot knows (did you mean `model`?)',
      );
      expect(message).toMatch(
        /zzz: is not a setting blitz-bot knows\n|zzz: is not a setting blitz-bot knows$/,
      );
    }
  });

  it('refuses a token pasted where the NAME of its variable belongs', () => {
    expect(() =>
      parseBlitzConfig(
        'notify:\n  - {type: homeAssistant, url: "http://ha:8123", tokenEnv: "eyJhbGciOi.secret", service: notify.x}\n',
      ),
    ).toThrow(/notify entry 1 → tokenEnv: must be an environment variable name/);
  });

  it('reports broken YAML as invalid config', () => {
    expect(() => parseBlitzConfig('runner: [\n')).toThrow(/not valid YAML/);
  });

  it('loads from BLITZ_CONFIG, and fails clearly when the named file is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'blitz-cfg-'));
    const file = join(dir, 'b.yml');
    writeFileSync(file, 'runner: {maxSessions: 4}\n');
    expect(loadBlitzConfig(undefined, { BLITZ_CONFIG: file }).runner.maxSessions).toBe(4);
    expect(() => loadBlitzConfig(join(dir, 'nope.yml'))).toThrow(/Config file not found/);
  });
});

describe('runnerBaseEnv', () => {
  // What every worker gets: PATH, HOME and the agent providers' own variables.
  const always = {
    PATH: '/usr/bin',
    HOME: '/home/bot',
    ANTHROPIC_API_KEY: 'k1',
    OLLAMA_HOST: 'http://127.0.0.1:11434',
  };
  // What the default passEnv lets through.
  const passedByDefault = {
    HTTPS_PROXY: 'http://proxy.internal:3128',
    NO_PROXY: 'localhost,127.0.0.1',
    NODE_EXTRA_CA_CERTS: '/etc/ssl/corp.pem',
    AWS_REGION: 'eu-west-1',
    AWS_SECRET_ACCESS_KEY: 'aws-secret',
    DASHSCOPE_API_KEY: 'ds',
  };
  const host = {
    ...always,
    ...passedByDefault,
    GITEA_TOKEN: 'secret',
    PRIVATE_KEY: 'pem',
    WEBHOOK_SECRET: 'w',
    DATABASE_URL: 'postgres://u:p@h/db',
    CORP_BUILD_FLAG: '1',
  };

  it('passes PATH, provider settings, proxies, CA bundles and cloud variables by default, never the bot secrets', () => {
    expect(runnerBaseEnv(undefined, host)).toEqual({ ...always, ...passedByDefault });
  });

  it('with runner.passEnv set passes exactly those names and prefixes besides the fixed allowlist', () => {
    const { runner } = parseBlitzConfig('runner:\n  passEnv: [CORP_*, HTTPS_PROXY]\n');
    expect(runnerBaseEnv(runner.passEnv, host)).toEqual({
      ...always,
      HTTPS_PROXY: 'http://proxy.internal:3128',
      CORP_BUILD_FLAG: '1',
    });
  });

  it('refuses a passEnv name or prefix that covers a bot secret, naming it', () => {
    for (const [item, secret] of [
      ['GITEA_TOKEN', 'GITEA_TOKEN'],
      ['GITEA_*', 'GITEA_TOKEN'],
      ['DATABASE_URL', 'DATABASE_URL'],
      ['PRIVATE_*', 'PRIVATE_KEY'],
      ['STATUS_TOKEN_FILE', 'STATUS_TOKEN_FILE'],
      ['*', 'GITEA_TOKEN'],
    ])
      expect(() => parseBlitzConfig(`runner:\n  passEnv: ["${item}"]\n`), item).toThrow(
        new RegExp(`runner → passEnv entry 1: .*bot's own secret .*${secret}`),
      );
    expect(() => parseBlitzConfig('runner:\n  passEnv: ["A B"]\n')).toThrow(
      /must be a variable name or a prefix/,
    );
  });

  it('reads a roster env fromEnv from the runner environment when the worker starts, and refuses a bot secret', () => {
    const config = parseBlitzConfig(
      [
        'roster:',
        '  - name: bedrock',
        '    tool: claude',
        '    roles: [blitz]',
        '    tiers: [execution]',
        '    env: { CLAUDE_CODE_USE_BEDROCK: "1", AWS_BEARER_TOKEN_BEDROCK: { fromEnv: BEDROCK_KEY }, X: { fromEnv: UNSET_ONE } }',
        '',
      ].join('\n'),
    );
    const env = config.roster[0]!.env;
    expect(resolveEntryEnv(env, { BEDROCK_KEY: 'bk' })).toEqual({
      env: { CLAUDE_CODE_USE_BEDROCK: '1', AWS_BEARER_TOKEN_BEDROCK: 'bk' },
      missing: ['UNSET_ONE'],
    });
    expect(() =>
      parseBlitzConfig(
        'roster:\n  - { name: a, tool: claude, roles: [blitz], tiers: [execution], env: { T: { fromEnv: GITEA_TOKEN } } }\n',
      ),
    ).toThrow(/roster entry 1 → env → T → fromEnv: .*bot's own secret GITEA_TOKEN/);
  });
});

describe('runner settings of unattended runs', () => {
  it('reads the environment backoff and the per-issue caps', () => {
    const c = parseBlitzConfig(
      'runner:\n  environmentBackoff: {initialSeconds: 30, maxSeconds: 900}\n  maxTokensPerIssue: 2000000\n  maxAttemptsPerIssue: 4\n  maxSessionsPerIssue: 3\n',
    );
    expect(c.runner).toMatchObject({
      environmentBackoff: { initialSeconds: 30, maxSeconds: 900 },
      maxTokensPerIssue: 2_000_000,
      maxAttemptsPerIssue: 4,
      maxSessionsPerIssue: 3,
    });
    expect(parseBlitzConfig('').runner.environmentBackoff).toBeUndefined();
  });

  it('refuses a cap below the first wait, a zero cap and a misspelt key, naming each', () => {
    const run = () =>
      parseBlitzConfig(
        'runner:\n  environmentBackoff: {initialSeconds: 600, maxSeconds: 60}\n  maxTokensPerIssue: 0\n  maxTokenPerIssue: 5\n',
      );
    expect(run).toThrow(/runner → environmentBackoff → maxSeconds: must be at least initialSeconds/);
    expect(run).toThrow(/runner → maxTokensPerIssue/);
    expect(run).toThrow(
      /maxTokenPerIssue: is not a setting blitz-bot knows \(did you mean `maxTokensPerIssue`\?\)/,
    );
  });
});

describe('prices and cost caps', () => {
  it('reads model prices in dollars per million tokens and the cost caps in dollars', () => {
    const c = parseBlitzConfig(
      [
        'runner: {maxCostPerIssue: 2.5, maxCostPerRun: 40}',
        'prices:',
        '  sonnet: {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}',
        '  qwen-local: {input: 0, output: 0}',
      ].join('\n'),
    );
    expect(c.runner).toMatchObject({ maxCostPerIssue: 2.5, maxCostPerRun: 40 });
    expect(c.prices).toEqual({
      sonnet: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      'qwen-local': { input: 0, output: 0 },
    });
    expect(parseBlitzConfig('').prices).toBeUndefined();
  });

  it('refuses a price without output, a negative one, a misspelt field and a zero cap, naming each', () => {
    const run = () =>
      parseBlitzConfig(
        [
          'runner: {maxCostPerRun: 0}',
          'prices:',
          '  a: {input: 3}',
          '  b: {input: -1, output: 2}',
          '  c: {input: 1, output: 2, cacheReads: 0.1}',
        ].join('\n'),
      );
    expect(run).toThrow(/runner → maxCostPerRun: /);
    expect(run).toThrow(/prices → a → output: /);
    expect(run).toThrow(/prices → b → input: /);
    expect(run).toThrow(
      /prices → c → cacheReads: is not a setting blitz-bot knows \(did you mean `cacheRead`\?\)/,
    );
  });
});
