import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { toJsonSchema } from './openapi-schema.ts';

const check = (schema: unknown, value: unknown) =>
  new Ajv({ strict: false }).compile(toJsonSchema(schema, false) as object)(value);

describe('toJsonSchema', () => {
  it('lets null through where OpenAPI says nullable, and only there', () => {
    expect(check({ type: 'string', nullable: true }, null)).toBe(true);
    expect(check({ type: 'string' }, null)).toBe(false);
    expect(check({ type: 'string', enum: ['a'], nullable: true }, null)).toBe(true);
    expect(check({ type: 'string', enum: ['a'], nullable: true }, 'b')).toBe(false);
  });

  it('wraps a nullable schema without a type in a null branch', () => {
    const schema = { allOf: [{ type: 'object', required: ['a'] }], nullable: true };
    expect(check(schema, null)).toBe(true);
    expect(check(schema, {})).toBe(false);
  });

  it('keeps a property that happens to be named like an OpenAPI keyword', () => {
    const schema = { type: 'object', properties: { example: { type: 'integer' } } };
    expect(check(schema, { example: 'not a number' })).toBe(false);
  });

  it('points local references at the registered document when asked', () => {
    expect(toJsonSchema({ $ref: '#/components/schemas/issue' }, true)).toEqual({
      $ref: 'doc#/components/schemas/issue',
    });
  });
});
