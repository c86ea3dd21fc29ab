// Turns OpenAPI 3.0 schema objects into JSON Schema that ajv understands: `nullable: true` becomes a
// `null` type (or a null branch), and local `#/components/…` references point at the document that
// OpenApiContract registers under the id `doc`.

type Json = Record<string, unknown>;

const withNull = (node: Json): Json => {
  const { nullable: _drop, ...rest } = node;
  if (typeof rest.type === 'string') {
    const out: Json = { ...rest, type: [rest.type, 'null'] };
    if (Array.isArray(rest.enum) && !rest.enum.includes(null)) out.enum = [...rest.enum, null];
    return out;
  }
  return { anyOf: [rest, { type: 'null' }] };
};

/** Deep-convert one schema; `rewriteRefs` when the result is compiled outside the `doc` schema. */
export const toJsonSchema = (node: unknown, rewriteRefs: boolean): unknown => {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n, rewriteRefs));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === 'example' || key === 'examples' || key === 'discriminator' || key === 'xml') continue;
    if (key === '$ref' && typeof value === 'string' && rewriteRefs && value.startsWith('#/')) {
      out.$ref = `doc${value}`;
      continue;
    }
    // `properties` maps names to schemas: a property called `example` is not the keyword.
    out[key] =
      key === 'properties' && value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value as Json).map(([name, s]) => [name, toJsonSchema(s, rewriteRefs)]),
          )
        : toJsonSchema(value, rewriteRefs);
  }
  return out.nullable === true ? withNull(out) : stripFalseNullable(out);
};

const stripFalseNullable = (node: Json): Json => {
  if (node.nullable === false) {
    const { nullable: _drop, ...rest } = node;
    return rest;
  }
  return node;
};
