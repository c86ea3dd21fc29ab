// `npm run schemas`: writes the config files' JSON Schemas to `schema/` from the zod schemas.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configJsonSchemas, jsonSchemaText } from '../src/config/json-schemas.ts';

const dir = join(import.meta.dirname, '..', 'schema');
mkdirSync(dir, { recursive: true });
for (const [name, schema] of Object.entries(configJsonSchemas())) {
  writeFileSync(join(dir, name), jsonSchemaText(schema));
  console.log(`wrote schema/${name}`);
}
