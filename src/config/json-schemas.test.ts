import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseBlitzConfig } from './blitz-config.ts';
import { configJsonSchemas, schemaIdBase } from './json-schemas.ts';
import { parseRepoConfig } from './repo-config.ts';

// ajv-formats is CommonJS: its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const schemaDir = join(import.meta.dirname, '..', '..', 'schema');
const published = (name: string): unknown => JSON.parse(readFileSync(join(schemaDir, name), 'utf8'));

const validatorFor = (name: string) => {
  const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  return ajv.compile(published(name) as object);
};

describe('published JSON Schemas of the config files', () => {
  it.each(Object.entries(configJsonSchemas()))(
    'schema/%s is what `npm run schemas` writes now',
    (name, fresh) => {
      expect(published(name), `schema/${name} is stale: run npm run schemas`).toEqual(fresh);
    },
  );

  it('accepts a repository file an editor should not flag, numbers in command lists included', () => {
    const validate = validatorFor('blitz.schema.json');
    const text = [
      'build: [npm, test]',
      'smoke: [git, log, -1, --oneline]',
      'ship: {policy: local, preview: [npm, run, dev, --port, 5173], previewPort: 5173}',
      'mergeMethod: squash',
      'labels: {hold: on-hold}',
    ].join('\n');
    expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true);
  });

  it('flags what blitz-bot refuses: an unknown key, a bad choice, a string command', () => {
    const validate = validatorFor('blitz.schema.json');
    expect(validate(parse('biuld: [npm]'))).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({
      keyword: 'additionalProperties',
      params: { additionalProperty: 'biuld' },
    });
    expect(validate(parse('mergeMethod: yolo'))).toBe(false);
    expect(validate(parse('build: npm test'))).toBe(false);
    expect(validate(parse('ship: {polcy: auto}'))).toBe(false);
  });

  it('checks an operator file: the roster, its commands and notify targets', () => {
    const validate = validatorFor('blitz-config.schema.json');
    const good = parse(
      [
        'runner: {maxSessions: 3}',
        'roster:',
        '  - {name: local, tool: custom, command: [node, a.js, --n, 1], resume: [node, a.js], roles: [blitz], tiers: [execution]}',
        'budget: [./probe.sh, --days, 7]',
      ].join('\n'),
    );
    expect(validate(good), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(parse('roster:\n  - {name: a, tool: gpt, roles: [blitz], tiers: [execution]}'))).toBe(
      false,
    );
    expect(validate(parse('runner: {maxSesions: 3}'))).toBe(false);
  });
});

// The same files through the bot's parser and through the published schema: they must agree, so an
// editor that shows no error means blitz-bot will take the file.
const operatorExamples: [string, string, boolean][] = [
  ['an empty file', '', true],
  [
    'a custom tool with command and resume',
    'roster:\n  - {name: a, tool: custom, command: [node, a.js], resume: [node, a.js, --resume], roles: [blitz], tiers: [execution]}',
    true,
  ],
  [
    'a custom tool without resume',
    'roster:\n  - {name: a, tool: custom, command: [node, a.js], roles: [blitz], tiers: [execution]}',
    false,
  ],
  [
    'a custom tool without command',
    'roster:\n  - {name: a, tool: custom, resume: [x], roles: [blitz], tiers: [design]}',
    false,
  ],
  [
    'an ollama reviewer',
    'roster:\n  - {name: o, tool: ollama, model: qwen, roles: [review], tiers: [execution]}',
    true,
  ],
  [
    'an ollama author',
    'roster:\n  - {name: o, tool: ollama, roles: [review, blitz], tiers: [execution]}',
    false,
  ],
  ['a slack target by variable', 'notify:\n  - {type: slack, urlEnv: SLACK_URL}', true],
  ['a slack target by URL', 'notify:\n  - {type: slack, url: "https://hooks.slack.com/x"}', true],
  ['a slack target without url or urlEnv', 'notify:\n  - {type: slack}', false],
  [
    'a slack target with both',
    'notify:\n  - {type: slack, url: "https://h.example/x", urlEnv: SLACK_URL}',
    false,
  ],
  ['an ntfy target without an address', 'notify:\n  - {type: ntfy, priority: high}', false],
  ['a webhook at an ftp URL', 'notify:\n  - {type: webhook, url: "ftp://example.com/x"}', false],
  [
    'a matrix target',
    'notify:\n  - {type: matrix, homeserver: "https://m.example", roomId: "!a:m.example", tokenEnv: MX}',
    true,
  ],
  ['a lower-case variable name', 'notify:\n  - {type: discord, urlEnv: discord_url}', false],
  ['an unknown event', 'notify:\n  - {type: discord, urlEnv: D, events: [exploded]}', false],
  ['publicUrl over https', 'publicUrl: "https://blitz.example.com"', true],
  ['publicUrl over ftp', 'publicUrl: "ftp://blitz.example.com"', false],
  ['a misspelt runner key', 'runner: {maxSesions: 3}', false],
  ['maxSessions zero', 'runner: {maxSessions: 0}', false],
  [
    'a price with cache prices',
    'prices:\n  my-model: {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}',
    true,
  ],
  ['a price without output', 'prices:\n  my-model: {input: 3}', false],
  ['a negative price', 'prices:\n  my-model: {input: -1, output: 2}', false],
  ['a misspelt price key', 'prices:\n  my-model: {input: 1, output: 2, cacheHit: 0.1}', false],
  ['cost caps in dollars', 'runner: {maxCostPerIssue: 2.5, maxCostPerRun: 40}', true],
  ['a zero cost cap', 'runner: {maxCostPerRun: 0}', false],
];

const repoExamples: [string, string, boolean][] = [
  ['commands with numbers', 'build: [npm, test]\nsmoke: [git, log, -1]', true],
  ['a deploy policy with its command', 'ship: {policy: deploy, deploy: [./deploy.sh]}', true],
  ['a deploy policy without a command', 'ship: {policy: deploy}', false],
  ['a health URL over ftp', 'ship: {healthUrl: "ftp://x.example"}', false],
  ['a merge method per kind', 'mergeMethod: {blitz: merge, fleet: rebase}', true],
  ['a merge method word', 'mergeMethod: squash', true],
  ['a bad merge method', 'mergeMethod: yolo', false],
  ['a command as a string', 'build: npm test', false],
  ['maxSessions above 32', 'maxSessions: 33', false],
  ['a bot login', 'allowedBots: ["renovate[bot]"]', true],
];

describe('the published schemas are as strict as blitz-bot', () => {
  const operator = validatorFor('blitz-config.schema.json');
  const repo = validatorFor('blitz.schema.json');
  const botTakesOperator = (text: string) => {
    try {
      parseBlitzConfig(text);
      return true;
    } catch {
      return false;
    }
  };

  it.each(operatorExamples)('operator file, %s: both say %s', (_name, text, valid) => {
    expect(botTakesOperator(text), 'blitz-bot').toBe(valid);
    expect(operator(parse(text) ?? {}), `schema: ${JSON.stringify(operator.errors)}`).toBe(valid);
  });

  it.each(repoExamples)('repository file, %s: both say %s', (_name, text, valid) => {
    expect(parseRepoConfig(text).ok, 'blitz-bot').toBe(valid);
    expect(repo(parse(text) ?? {}), `schema: ${JSON.stringify(repo.errors)}`).toBe(valid);
  });

  it('each schema names itself with an $id under the published folder', () => {
    for (const [name, schema] of Object.entries(configJsonSchemas()))
      expect(schema.$id).toBe(`${schemaIdBase}${name}`);
  });
});
