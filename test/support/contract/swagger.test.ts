import { describe, expect, it } from 'vitest';
import { SwaggerContract } from './swagger.ts';

// A tiny Swagger 2.0 document with what Gitea's uses: path/query/body parameters, a shared
// response by $ref, `x-nullable`, and templates that overlap (`{index}` and `{index}.{diffType}`).
const doc = {
  swagger: '2.0',
  basePath: '/api/v1',
  paths: {
    '/things/{index}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'index', in: 'path', required: true, type: 'integer' }],
        responses: { '200': { $ref: '#/responses/Thing' }, '404': { description: 'not found' } },
      },
      patch: {
        operationId: 'editThing',
        parameters: [
          { name: 'index', in: 'path', required: true, type: 'integer' },
          { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/EditThing' } },
        ],
        responses: { '201': { $ref: '#/responses/Thing' } },
      },
    },
    '/things/{index}.{kind}': {
      get: {
        operationId: 'getThingAs',
        parameters: [
          { name: 'index', in: 'path', required: true, type: 'integer' },
          { name: 'kind', in: 'path', required: true, type: 'string', enum: ['diff', 'patch'] },
          { name: 'binary', in: 'query', type: 'boolean' },
        ],
        responses: { '200': { description: 'text', schema: { type: 'string' } } },
      },
    },
  },
  responses: { Thing: { description: 'a thing', schema: { $ref: '#/definitions/Thing' } } },
  definitions: {
    Thing: {
      type: 'object',
      properties: {
        id: { type: 'integer', format: 'int64' },
        owner: { type: 'object', 'x-nullable': true, properties: { login: { type: 'string' } } },
      },
    },
    EditThing: {
      type: 'object',
      required: ['state'],
      properties: { state: { type: 'string', enum: ['open', 'closed'] } },
    },
  },
};

const contract = new SwaggerContract(doc);
const request = (method: string, path: string, body?: unknown, query = '') =>
  contract.validateRequest({
    method,
    path,
    query: new URLSearchParams(query),
    body,
    hasBody: body !== undefined,
  });

describe('SwaggerContract', () => {
  it('picks the template whose path parameters are valid when two templates match', () => {
    expect(contract.match('GET', '/things/3.diff')?.operation.operationId).toBe('getThingAs');
    expect(contract.match('GET', '/things/3')?.operation.operationId).toBe('getThing');
    expect(contract.match('GET', '/things/3.zip')).toBeUndefined();
    expect(contract.match('DELETE', '/things/3')).toBeUndefined();
  });

  it('accepts a conforming request and rejects bad path, query and body values', () => {
    expect(request('PATCH', '/things/3', { state: 'closed' }).errors).toEqual([]);
    expect(request('GET', '/things/3.diff', undefined, 'binary=yes').errors[0]).toContain(
      'must be a boolean',
    );
    expect(request('GET', '/things/3', undefined, 'page=2').errors[0]).toContain(
      '"page" is not in the API description',
    );
    expect(request('PATCH', '/things/3').errors[0]).toContain('request body is required');
    expect(request('PATCH', '/things/3', { state: 'shut' }).errors.join()).toContain(
      'must be equal to one of the allowed values',
    );
    expect(request('PATCH', '/things/3', { state: 'open', color: 'red' }).errors.join()).toContain(
      'additionalProperty',
    );
    expect(request('GET', '/things/3', { state: 'open' }).errors[0]).toContain('takes no request body');
  });

  it('lets x-nullable fields be null, and nothing else', () => {
    const op = contract.match('GET', '/things/3')!.operation;
    expect(contract.validateResponse(op, 200, { id: 1, owner: null })).toEqual([]);
    expect(contract.validateResponse(op, 200, { id: 1, owner: { login: 'a' } })).toEqual([]);
    expect(contract.validateResponse(op, 200, { id: null })).not.toEqual([]);
    expect(contract.validateResponse(op, 200, { id: 1.5 })).not.toEqual([]);
  });

  it('rejects a status the operation does not declare', () => {
    const op = contract.match('GET', '/things/3')!.operation;
    expect(contract.validateResponse(op, 404, undefined)).toEqual([]);
    expect(contract.validateResponse(op, 500, {})[0]).toContain('status not in the API description');
  });
});
