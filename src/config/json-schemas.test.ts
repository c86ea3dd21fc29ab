import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configJsonSchemas } from './json-schemas.ts';

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
