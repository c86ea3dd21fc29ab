// JSON Schemas of the two config files, generated from the zod schemas that parse them, so an editor
// (yaml-language-server, VS Code, JetBrains) completes and checks exactly what blitz-bot accepts.
// `npm run schemas` writes them to `schema/`; a test fails when the published files are stale.
import { z } from 'zod';
import { blitzConfigArgvPaths, blitzConfigSchema } from './blitz-config.ts';
import { jsonSchemaRules } from './json-schema-rules.ts';
import { repoConfigArgvPaths, repoConfigSchema } from './repo-config.ts';
import { listElementsAt } from './schema-keys.ts';
import type { ArgvPath } from './yaml-argv.ts';

type JsonObject = Record<string, unknown>;
interface PipeDef {
  type: string;
  in?: { _zod: { def: { type: string } } };
  out?: { _zod: { def: { type: string; entries?: Record<string, string | number> } } };
}

/** Where the published files live; each schema's `$id` is its file there. The bot serves the same at /schemas/NAME. */
export const schemaIdBase = 'https://github.com/blitz-bot/blitz-bot/raw/main/schema/';

const jsonSchemaOf = (
  name: string,
  schema: z.ZodType,
  argvPaths: readonly ArgvPath[],
  title: string,
): JsonObject => {
  const argvWords = new Set(argvPaths.flatMap((path) => listElementsAt(schema, path)));
  const generated = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-07',
    // What the YAML loaders accept beyond what zod sees after them.
    override: (ctx) => {
      const def = (ctx.zodSchema as { _zod: { def: PipeDef } })._zod.def;
      // A rule a refinement checks, in JSON Schema words (json-schema-rules.ts).
      const rule = jsonSchemaRules.get(ctx.zodSchema);
      if (rule) Object.assign(ctx.jsonSchema, rule);
      // A word piped into a choice (`mergeMethod: squash`) is offered as that choice.
      if (def.type === 'pipe' && def.in?._zod.def.type === 'string' && def.out?._zod.def.type === 'enum') {
        ctx.jsonSchema.enum = Object.values(def.out._zod.def.entries ?? {});
      }
      // A command word written as a number or boolean is taken as its text (yaml-argv.ts), so an
      // editor must not flag `[git, log, -1]`.
      if (argvWords.has(ctx.zodSchema)) {
        const asText = { ...ctx.jsonSchema };
        for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
        ctx.jsonSchema.anyOf = [asText, { type: ['number', 'boolean'] }];
      }
    },
  }) as JsonObject;
  const { $schema, ...rest } = generated;
  return { $schema, $id: `${schemaIdBase}${name}`, title, ...rest };
};

/** The published files, by name under `schema/`. */
export const configJsonSchemas = (): Record<string, JsonObject> => ({
  'blitz.schema.json': jsonSchemaOf(
    'blitz.schema.json',
    repoConfigSchema,
    repoConfigArgvPaths,
    'blitz-bot repository settings (.github/blitz.yml or .gitea/blitz.yml)',
  ),
  'blitz-config.schema.json': jsonSchemaOf(
    'blitz-config.schema.json',
    blitzConfigSchema,
    blitzConfigArgvPaths,
    'blitz-bot operator settings (blitz.config.yml)',
  ),
});

/** The text written to each file: two-space JSON and a final newline, as the formatter keeps it. */
export const jsonSchemaText = (schema: JsonObject): string => `${JSON.stringify(schema, null, 2)}\n`;
