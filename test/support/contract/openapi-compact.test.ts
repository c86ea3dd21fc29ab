// The compact cached form of GitHub's document checks exactly what the document does: the same
// problems, word for word, for requests and responses right and wrong, and a property that is only
// named like a dropped keyword is still checked.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OpenApiContract } from './openapi.ts';
import { compactOpenApi, loadOpenApi, stripForChecks } from './openapi-compact.ts';
import { githubOpenApiFile } from './prepare.ts';

const full = new OpenApiContract(JSON.parse(readFileSync(githubOpenApiFile(), 'utf8')));
const compact = new OpenApiContract(loadOpenApi(githubOpenApiFile()));

const request = (method: string, path: string, body?: unknown, query = '') => ({
  method,
  path,
  query: new URLSearchParams(query),
  body,
});

describe('the compact GitHub document', () => {
  it('drops words for people, keeps properties named like them', () => {
    const schema = {
      description: 'an issue',
      'x-github': { triggersNotification: true },
      type: 'object',
      properties: { description: { type: 'string', example: 'x' }, title: { type: 'string' } },
    };
    expect(stripForChecks(schema)).toEqual({
      type: 'object',
      properties: { description: { type: 'string' }, title: { type: 'string' } },
    });
    const doc = compactOpenApi({ paths: {}, components: { examples: { a: {} }, schemas: { s: schema } } });
    expect(Object.keys(doc.components as object)).toEqual(['schemas']);
  });

  it.each([
    request('POST', '/repos/acme/app/issues', { title: 'A bug', labels: ['bug'] }),
    request('POST', '/repos/acme/app/issues', { title: 5, labelz: [] }),
    request('POST', '/repos/acme/app/issues'),
    request('GET', '/repos/acme/app/pulls', undefined, 'state=open&per_page=100'),
    request('GET', '/repos/acme/app/pulls', undefined, 'state=bogus&page=x&nope=1'),
    request('PATCH', '/repos/acme/app/issues/comments/12', { body: null }),
    request('PUT', '/repos/acme/app/pulls/3/merge', { merge_method: 'octopus' }),
    request('GET', '/repos/acme/app/contents/src/a%20b/c.ts', undefined, 'ref=main'),
    request('GET', '/no/such/endpoint'),
  ])('checks $method $path $query the same', (req) => {
    const [a, b] = [full.checkRequest(req), compact.checkRequest(req)];
    expect(b.problems).toEqual(a.problems);
    expect(b.matched?.operation.operationId).toBe(a.matched?.operation.operationId);
    expect(b.matched?.pathParams).toEqual(a.matched?.pathParams);
  });

  it.each([
    ['GET', '/repos/acme/app/issues/1', 200, { id: 1, number: 1, title: 'x' }],
    ['GET', '/repos/acme/app/issues/1', 200, { id: 'one', milestone: { title: null } }],
    ['GET', '/repos/acme/app/issues/1', 404, { message: 'Not Found', documentation_url: 'x' }],
    ['GET', '/repos/acme/app/issues/1', 418, {}],
    ['POST', '/repos/acme/app/pulls', 201, { number: 2, head: { ref: 'b' }, mergeable: null }],
    ['DELETE', '/repos/acme/app/issues/comments/5', 204, undefined],
  ] as const)('checks the answer %s %s %i the same', (method, path, status, body) => {
    const op = full.match(method, path)!.operation;
    const compactOp = compact.match(method, path)!.operation;
    expect(compact.checkResponse(compactOp, status, body, 'json')).toEqual(
      full.checkResponse(op, status, body, 'json'),
    );
  });
});
