// Rules a config schema checks in a refinement (`superRefine`: "command and resume are required when
// tool is custom"), which z.toJSONSchema cannot see. Each is registered beside its refinement as the
// JSON Schema words that say the same, and json-schemas.ts adds them to the published schema, so an
// editor refuses what blitz-bot refuses. Rules across values (a name used twice, maxSeconds below
// initialSeconds) have no JSON Schema words; only the bot (and `config validate`) reports those.
import { z } from 'zod';

type JsonSchemaRule = Record<string, unknown>;

export const jsonSchemaRules = z.registry<JsonSchemaRule>();

/** `schema`, with the JSON Schema words of the rule its refinement checks. */
export const withJsonSchemaRule = <T extends z.ZodType>(schema: T, rule: JsonSchemaRule): T => {
  jsonSchemaRules.add(schema, rule);
  return schema;
};

/** `when` the field `key` has the value `value`, the object must also match `then`. */
export const whenField = (key: string, value: string, then: JsonSchemaRule): JsonSchemaRule => ({
  if: { type: 'object', properties: { [key]: { const: value } }, required: [key] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a promise
  then: { type: 'object', ...then },
});

/** The object must have `keys` (named under `properties` too, as a strict validator asks). */
export const requires = (...keys: string[]): JsonSchemaRule => ({
  type: 'object',
  properties: Object.fromEntries(keys.map((k) => [k, true])),
  required: keys,
});

/** An http(s) URL: `format: uri` alone also takes `ftp:` and `mailto:`. */
export const httpUrlRule: JsonSchemaRule = { pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' };
