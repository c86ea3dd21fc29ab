// Walks a zod config schema by path: the setting names it knows at a place (for the "did you mean"
// beside an unknown key) and the schema of a field (for the JSON Schema generator). Read from the
// schema itself, so a field added to it is known everywhere at once.
import type { z } from 'zod';

interface Def {
  type: string;
  innerType?: unknown;
  in?: unknown;
  element?: unknown;
  valueType?: unknown;
  options?: unknown[];
  shape?: Record<string, unknown>;
}

const defOf = (schema: unknown): Def | undefined =>
  (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def;

/** The schema under defaults, optionals and pipes: the shape of what is written. */
export const unwrapSchema = (schema: unknown): unknown => {
  let s = schema;
  for (let depth = 0; depth < 16; depth++) {
    const def = defOf(s);
    if (def?.innerType !== undefined) s = def.innerType;
    else if (def?.type === 'pipe') s = def.in;
    else return s;
  }
  return s;
};

const objectsIn = (schema: unknown): Record<string, unknown>[] => {
  const def = defOf(unwrapSchema(schema));
  if (def?.type === 'object' && def.shape) return [def.shape];
  if (def?.type === 'union') return (def.options ?? []).flatMap(objectsIn);
  return [];
};

// A list index (a number, or `*` for any entry) steps into a list; a name into a mapping, or into
// any entry of a record (`prices: {<model>: …}`).
const childOf = (schema: unknown, key: PropertyKey): unknown[] => {
  const def = defOf(unwrapSchema(schema));
  if (typeof key === 'number' || key === '*') return def?.type === 'array' ? [def.element] : [];
  if (def?.type === 'record') return [def.valueType];
  return objectsIn(schema).flatMap((shape) => (typeof key === 'string' && key in shape ? [shape[key]] : []));
};

/** Every schema that can sit at `path`: more than one where a union offers several. */
export const schemasAt = (schema: z.ZodType, path: readonly PropertyKey[]): unknown[] =>
  path.reduce<unknown[]>((nodes, key) => nodes.flatMap((n) => childOf(n, key)), [schema]);

/** The keys of the mapping at `path`, or none when it is not a mapping. */
export const knownKeysAt = (schema: z.ZodType, path: readonly PropertyKey[]): string[] => [
  ...new Set(schemasAt(schema, path).flatMap((s) => objectsIn(s).flatMap((shape) => Object.keys(shape)))),
];

/** The element schema of the list at `path` (`*` for any list entry on the way). */
export const listElementsAt = (schema: z.ZodType, path: readonly PropertyKey[]): unknown[] =>
  schemasAt(schema, [...path, '*']);
