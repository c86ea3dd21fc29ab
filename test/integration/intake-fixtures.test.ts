// The hand-made webhook fixtures are only worth something if the forges could have sent them: each
// GitHub fixture is checked against its webhook schema in GitHub's OpenAPI description, each Gitea
// fixture's objects against the Gitea v1.22 swagger definitions.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { toJsonSchema } from '../support/contract/openapi-schema.ts';
import { fixture } from '../support/signing.ts';

// ajv-formats is CommonJS: its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const githubSchemaOf: Record<string, string> = {
  'issue_dependencies.blocked_by_added': 'webhook-issue-dependencies-blocked-by-added',
  'issue_dependencies.blocking_removed': 'webhook-issue-dependencies-blocking-removed',
  'sub_issues.sub_issue_added': 'webhook-sub-issues-sub-issue-added',
  'sub_issues.sub_issue_removed': 'webhook-sub-issues-sub-issue-removed',
  'pull_request.closed.merged': 'webhook-pull-request-closed',
};

const names = (forge: string) =>
  readdirSync(join('test', 'fixtures', forge))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length));

describe('GitHub fixtures match the official webhook schemas', () => {
  const doc = JSON.parse(readFileSync('node_modules/@octokit/openapi/generated/api.github.com.json', 'utf8'));
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', components: toJsonSchema(doc.components, false) });

  it('every fixture file has a schema to be checked against', () => {
    expect(names('github').sort()).toEqual(Object.keys(githubSchemaOf).sort());
  });

  it.each(Object.entries(githubSchemaOf))('%s is a valid %s', (name, schema) => {
    const validate = ajv.compile({ $ref: `doc#/components/schemas/${schema}` });
    const ok = validate(fixture('github', name));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the checker itself rejects a fixture with a missing required field', () => {
    const validate = ajv.compile({ $ref: 'doc#/components/schemas/webhook-sub-issues-sub-issue-added' });
    const broken = fixture('github', 'sub_issues.sub_issue_added');
    delete broken.parent_issue;
    expect(validate(broken)).toBe(false);
  });
});

describe('Gitea fixtures match the v1.22 swagger shapes', () => {
  const swagger = JSON.parse(readFileSync('test/contracts/gitea-swagger-v1.22.json', 'utf8'));
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'gitea', definitions: swagger.definitions });
  const check = (definition: string, value: unknown) => {
    const validate = ajv.compile({ $ref: `gitea#/definitions/${definition}` });
    const ok = validate(value);
    return ok ? [] : (validate.errors ?? []).map((e) => `${definition}${e.instancePath} ${e.message}`);
  };
  // Swagger 2.0 has no nullable: Gitea sends null for absent objects, so null is skipped here.
  const present = (v: unknown) => v !== null && v !== undefined;

  it.each(names('gitea'))(
    '%s: repository, sender, issue, comment and pull_request are Gitea shapes',
    (name) => {
      const p = fixture('gitea', name);
      const problems = [
        ...check('Repository', { ...(p.repository as object), parent: undefined, repo_transfer: undefined }),
        ...check('User', p.sender),
        ...(present(p.issue) ? check('Issue', stripNulls(p.issue)) : []),
        ...(present(p.comment) ? check('Comment', p.comment) : []),
        ...(present(p.pull_request) ? check('PullRequest', stripNulls(p.pull_request)) : []),
      ];
      expect(problems).toEqual([]);
    },
  );

  it('the checker itself rejects an issue whose number is a string', () => {
    expect(check('Issue', { number: 'five' })).not.toEqual([]);
  });
});

const stripNulls = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(stripNulls);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== null)
      .map(([k, x]) => [k, stripNulls(x)]),
  );
};
