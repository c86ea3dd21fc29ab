import { describe, expect, it } from 'vitest';
import {
  type ConfigError,
  defaultRepoConfig,
  formatConfigErrors,
  parseRepoConfig,
  type RepoConfig,
} from './repo-config.ts';

const configOf = (yaml: string | undefined): RepoConfig => {
  const result = parseRepoConfig(yaml);
  if (!result.ok) throw new Error(`expected a config, got ${JSON.stringify(result.errors)}`);
  return result.config;
};
const errorsOf = (yaml: string): ConfigError[] => {
  const result = parseRepoConfig(yaml);
  if (result.ok) throw new Error(`expected errors from ${JSON.stringify(yaml)}`);
  return result.errors;
};

const defaults: RepoConfig = {
  smokeAttempts: 3,
  ship: { policy: 'auto', requireChecks: false },
  permission: 'write',
  labels: { blitz: 'blitz', approved: 'blitz/approved', hold: 'hold', epic: 'epic' },
  mergeMethod: { blitz: 'merge', fleet: 'squash' },
  keepBranches: false,
  allowedBots: [],
  ci: { wait: 'auto', settleSeconds: 60, timeoutMinutes: 60, ignore: [], maxFixAttempts: 2 },
};

describe('parseRepoConfig: files that parse', () => {
  it.each<[string, string | undefined]>([
    ['a missing file', undefined],
    ['an empty file', ''],
    ['a file of comments', '# blitz-bot settings\n# nothing yet\n'],
    ['an explicit null document', '~'],
  ])('%s gives the defaults', (_why, yaml) => {
    expect(configOf(yaml)).toEqual(defaults);
    expect(defaultRepoConfig()).toEqual(defaults);
  });

  it('reads the example from the issue', () => {
    const yaml = [
      'build: [npm, test]',
      'smoke: [npm, run, smoke]',
      'ship:',
      '  policy: auto',
      '  deploy: [./scripts/deploy.sh]',
      '  preview: [npm, run, dev, --, --host, 0.0.0.0]',
      '  previewPort: 5173',
      'maxSessions: 3',
      'permission: write',
    ].join('\n');
    expect(configOf(yaml)).toEqual({
      ...defaults,
      build: ['npm', 'test'],
      smoke: ['npm', 'run', 'smoke'],
      ship: {
        policy: 'auto',
        deploy: ['./scripts/deploy.sh'],
        preview: ['npm', 'run', 'dev', '--', '--host', '0.0.0.0'],
        previewPort: 5173,
        requireChecks: false,
      },
      maxSessions: 3,
    });
  });

  it('takes words YAML would read as numbers, booleans or null as the text written', () => {
    const yaml = [
      'smoke: [git, log, -1, --oneline]',
      'build: [npm, run, dev, --port, 5173, --ratio, 1.0, --mask, 0x10, --flag, true, --home, ~, --n, 1e3]',
      'ship:',
      '  deploy: [./deploy.sh, --retries, 007]',
      '  preview:',
      '    - vite',
      '    - --strict',
      '    - false',
      '  previewPort: 5173',
      'maxSessions: 3',
    ].join('\n');
    const config = configOf(yaml);
    expect(config.smoke).toEqual(['git', 'log', '-1', '--oneline']);
    expect(config.build).toEqual(
      'npm run dev --port 5173 --ratio 1.0 --mask 0x10 --flag true --home ~ --n 1e3'.split(' '),
    );
    expect(config.ship.deploy).toEqual(['./deploy.sh', '--retries', '007']);
    expect(config.ship.preview).toEqual(['vite', '--strict', 'false']);
    // Only command lists change: other fields keep their YAML types.
    expect(config.ship.previewPort).toBe(5173);
    expect(config.maxSessions).toBe(3);
  });

  it('reads block-style lists, labels, bots and a deploy URL', () => {
    const yaml = [
      'build:',
      '  - pnpm',
      '  - "--dir"',
      '  - app',
      '  - build',
      'ship:',
      '  policy: deploy',
      '  deploy: [make, deploy]',
      '  deployUrl: https://app.example.org',
      'permission: admin',
      'labels:',
      '  blitz: autopilot',
      '  hold: "on hold"',
      'allowedBots: ["renovate[bot]", ci-bot]',
    ].join('\n');
    expect(configOf(yaml)).toEqual({
      ...defaults,
      build: ['pnpm', '--dir', 'app', 'build'],
      ship: {
        policy: 'deploy',
        deploy: ['make', 'deploy'],
        deployUrl: 'https://app.example.org',
        requireChecks: false,
      },
      permission: 'admin',
      labels: { ...defaults.labels, blitz: 'autopilot', hold: 'on hold' },
      allowedBots: ['renovate[bot]', 'ci-bot'],
    });
  });

  it.each<[string, RepoConfig['mergeMethod']]>([
    ['mergeMethod: squash', { blitz: 'squash', fleet: 'squash' }],
    ['mergeMethod: rebase', { blitz: 'rebase', fleet: 'rebase' }],
    ['mergeMethod:\n  fleet: merge', { blitz: 'merge', fleet: 'merge' }],
    ['mergeMethod:\n  blitz: squash', { blitz: 'squash', fleet: 'squash' }],
  ])('%j sets the merge methods', (yaml, expected) => {
    expect(configOf(yaml).mergeMethod).toEqual(expected);
  });
});

describe('parseRepoConfig: broken files are answered field by field', () => {
  it.each<[string, string, string]>([
    [
      'ship:\n  policy: yolo',
      'ship.policy',
      '`ship.policy` must be one of auto, local, deploy (got `"yolo"`)',
    ],
    [
      'build: npm test',
      'build',
      '`build` must be a list of words, e.g. [npm, run, build]: commands run without a shell, so a string is never split on spaces',
    ],
    ['smoke: "npm run smoke"', 'smoke', '`smoke` must be a list of words'],
    ['ship:\n  deploy: ./deploy.sh', 'ship.deploy', '`ship.deploy` must be a list of words'],
    ['build: []', 'build', '`build` must name a command: the list is empty'],
    ['build: [npm, ""]', 'build[1]', '`build[1]` must not be empty'],
    ['build:\n  - npm\n  -', 'build[1]', '`build[1]` must be text (got nothing)'],
    ['build: [npm, {a: 1}]', 'build[1]', '`build[1]` must be text (got a mapping)'],
    ['maxSessions: 0', 'maxSessions', '`maxSessions` must be at least 1 (got `0`)'],
    ['maxSessions: 33', 'maxSessions', '`maxSessions` must be at most 32 (got `33`)'],
    ['maxSessions: 2.5', 'maxSessions', '`maxSessions` must be a whole number (got `2.5`)'],
    ['maxSessions: three', 'maxSessions', '`maxSessions` must be a number (got `"three"`)'],
    ['permission: none', 'permission', '`permission` must be one of read, write, admin (got `"none"`)'],
    ['permission: maintain', 'permission', 'must be one of read, write, admin'],
    ['mergeMethod: yolo', 'mergeMethod', '`mergeMethod` must be one of merge, squash, rebase (got `"yolo"`)'],
    [
      'mergeMethod:\n  fleet: ff',
      'mergeMethod.fleet',
      '`mergeMethod.fleet` must be one of merge, squash, rebase',
    ],
    ['mergeMethod: [squash]', 'mergeMethod', '`mergeMethod` must be merge, squash or rebase, or a mapping'],
    ['ship:\n  policy: deploy', 'ship.deploy', '`ship.deploy` is required when `ship.policy` is deploy'],
    ['ship:\n  previewPort: 70000', 'ship.previewPort', '`ship.previewPort` must be at most 65535'],
    ['ship:\n  deployUrl: ftp://x.org', 'ship.deployUrl', '`ship.deployUrl` must be an http(s) URL'],
    ['ship:\n  deployUrl: not a url', 'ship.deployUrl', '`ship.deployUrl` must be an http(s) URL'],
    ['ship: local', 'ship', '`ship` must be a mapping (got `"local"`)'],
    ['labels:\n  hold: ""', 'labels.hold', '`labels.hold` must not be empty'],
    ['allowedBots: [renovate, "two words"]', 'allowedBots[1]', '`allowedBots[1]` is not a login name'],
    ['allowedBots: renovate', 'allowedBots', '`allowedBots` must be a list (got `"renovate"`)'],
  ])('%j is refused at %s', (yaml, path, message) => {
    const errors = errorsOf(yaml);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.path).toBe(path);
    expect(errors[0]!.message).toContain(message);
  });

  it.each<[string, string, string]>([
    ['biuld: [npm]', 'biuld', '`biuld` is not a setting blitz-bot knows (did you mean `build`?)'],
    ['maxSesions: 2', 'maxSesions', '(did you mean `maxSessions`?)'],
    [
      'ship:\n  polcy: auto',
      'ship.polcy',
      '`ship.polcy` is not a setting blitz-bot knows (did you mean `policy`?)',
    ],
    ['labels:\n  approve: ok', 'labels.approve', '(did you mean `approved`?)'],
    [
      'previewPort: 5173',
      'previewPort',
      '`previewPort` is not a setting blitz-bot knows (it belongs under `ship`)',
    ],
    ['colour: blue', 'colour', '`colour` is not a setting blitz-bot knows'],
  ])('an unknown key %j is refused, with a suggestion when one is close', (yaml, path, message) => {
    const [error] = errorsOf(yaml);
    expect(error!.path).toBe(path);
    expect(error!.message).toContain(message);
  });

  it('does not suggest a far-off key', () => {
    expect(errorsOf('colour: blue')[0]!.message).not.toContain('did you mean');
  });

  it('reports every broken field at once', () => {
    const errors = errorsOf('build: npm test\nship:\n  policy: yolo\nmaxSessions: 0\nextra: 1');
    expect(errors.map((e) => e.path).sort()).toEqual(['build', 'extra', 'maxSessions', 'ship.policy']);
  });

  it.each<[string, string, RegExp]>([
    ['a list', '- build\n- test', /^The file must be a mapping of settings.*\(got a list\)$/],
    ['a bare word', 'hello', /^The file must be a mapping of settings.*\(got `"hello"`\)$/],
    ['a number', '42', /\(got `42`\)$/],
    ['broken YAML', 'build: [npm, test', /^The file is not valid YAML: .*line 1/],
    [
      'duplicate keys',
      'permission: read\npermission: admin',
      /^The file is not valid YAML: Map keys must be unique at line 2/,
    ],
    ['a tab-indented mapping', 'ship:\n\tpolicy: auto', /^The file is not valid YAML/],
  ])('a file that is %s is refused as a whole', (_why, yaml, message) => {
    const errors = errorsOf(yaml);
    expect(errors[0]!.path).toBe('');
    expect(errors[0]!.message).toMatch(message);
  });

  it('refuses an alias bomb instead of expanding it', () => {
    const row = (name: string, ref: string) => `${name}: &${name} [${Array(10).fill(`*${ref}`).join(', ')}]`;
    const yaml = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      row('b', 'a'),
      row('c', 'b'),
      row('d', 'c'),
      row('e', 'd'),
    ].join('\n');
    expect(errorsOf(yaml)[0]!.message).toMatch(/^The file could not be read: Excessive alias count/);
  });

  it('refuses a file over 64 KiB without parsing it', () => {
    const yaml = `build: [npm, test]\n${'# padding\n'.repeat(7000)}`;
    expect(errorsOf(yaml)).toEqual([{ path: '', message: 'The file is larger than 64 KiB' }]);
  });

  it('quotes a hostile value inertly: no mention, no markup, bounded length', () => {
    const [error] = errorsOf(`permission: "@everyone \`x\` ${'y'.repeat(200)}"`);
    expect(error!.message).toMatch(/\(got `+ "@everyone `x` y+… `+\)$/);
    expect(error!.message.length).toBeLessThan(160);
  });
});

describe('formatConfigErrors', () => {
  it('names the file, says nothing runs, and lists each error', () => {
    const errors = errorsOf('ship:\n  policy: yolo\nbuild: npm test');
    expect(formatConfigErrors(errors, '.github/blitz.yml')).toBe(
      [
        '**blitz-bot cannot use `.github/blitz.yml`**, so nothing will run until it is fixed on the default branch:',
        '',
        ...errors.map((e) => `- ${e.message}`),
      ].join('\n'),
    );
  });

  it('lists at most 20 errors and counts the rest', () => {
    const errors = Array.from({ length: 25 }, (_, i) => ({ path: `k${i}`, message: `error ${i}` }));
    const text = formatConfigErrors(errors, '.gitea/blitz.yml');
    expect(text).toContain('- error 19');
    expect(text).not.toContain('- error 20');
    expect(text).toContain('- … and 5 more');
  });
});

describe('parseRepoConfig: unattended-run settings', () => {
  it('reads keepBranches, ship.healthUrl and ship.healthTimeoutSeconds', () => {
    const r = parseRepoConfig(
      'keepBranches: true\nship:\n  healthUrl: https://shop.example.com/healthz\n  healthTimeoutSeconds: 120\n',
    );
    expect(r).toMatchObject({
      ok: true,
      config: {
        keepBranches: true,
        ship: { healthUrl: 'https://shop.example.com/healthz', healthTimeoutSeconds: 120 },
      },
    });
  });

  it('refuses a health URL that is not http(s) and a timeout out of range, naming each field', () => {
    const errors = errorsOf(
      'ship:\n  healthUrl: file:///etc/passwd\n  healthTimeoutSeconds: 0\nkeepBranches: maybe\n',
    );
    expect(errors.map((e) => e.path).sort()).toEqual([
      'keepBranches',
      'ship.healthTimeoutSeconds',
      'ship.healthUrl',
    ]);
    expect(errors.find((e) => e.path === 'ship.healthUrl')?.message).toContain('must be an http(s) URL');
  });
});

describe('parseRepoConfig: ship.healthUrl never names a metadata service', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    'http://[fe80::1]:8080/healthz',
    'http://[fd00:ec2::254]/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://100.100.100.200/latest/meta-data/',
  ])('refuses %s with the field and the reason', (url) => {
    const errors = errorsOf(`ship:\n  healthUrl: ${url}\n`);
    expect(errors).toEqual([
      {
        path: 'ship.healthUrl',
        message: expect.stringContaining('is a link-local or cloud-metadata address'),
      },
    ]);
  });

  it('keeps an ordinary health URL', () => {
    expect(configOf('ship:\n  healthUrl: http://10.0.0.5:8080/healthz\n').ship.healthUrl).toBe(
      'http://10.0.0.5:8080/healthz',
    );
  });
});

describe('parseRepoConfig: ci', () => {
  it('reads the example from issue 21', () => {
    expect(
      configOf(
        'ci:\n  wait: always\n  settleSeconds: 30\n  timeoutMinutes: 90\n  ignore: [codecov/patch]\n  maxFixAttempts: 3\n',
      ).ci,
    ).toEqual({
      wait: 'always',
      settleSeconds: 30,
      timeoutMinutes: 90,
      ignore: ['codecov/patch'],
      maxFixAttempts: 3,
    });
  });

  it('names a wrong wait word, a negative settle time and an unknown key, and gives no config', () => {
    const errors = errorsOf('ci:\n  wait: sometimes\n  settleSeconds: -1\n  retries: 2\n');
    expect(errors.map((e) => e.path).sort()).toEqual(['ci.retries', 'ci.settleSeconds', 'ci.wait']);
    expect(errors.find((e) => e.path === 'ci.wait')?.message).toMatch(/auto, always, never/);
  });
});

describe('the same text read again', () => {
  it('gives the same answer, each read its own copy', () => {
    const yaml = 'build: [npm, run, build]\nlabels:\n  hold: wait\n';
    const first = configOf(yaml);
    const second = configOf(yaml);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    // A caller's change to its copy is not in the next read.
    first.labels.hold = 'changed';
    first.build?.push('--changed');
    expect(configOf(yaml)).toEqual({ ...second, labels: { ...second.labels, hold: 'wait' } });
    expect(configOf(yaml).build).toEqual(['npm', 'run', 'build']);
  });

  it('gives the same errors for a text that does not parse, and another text its own answer', () => {
    expect(errorsOf('ship: [')).toEqual(errorsOf('ship: ['));
    expect(configOf('keepBranches: true').keepBranches).toBe(true);
    expect(configOf('keepBranches: false').keepBranches).toBe(false);
  });
});
