// GET /schemas/NAME: the JSON Schemas of the config files (what `npm run schemas` publishes in
// schema/), built from the zod schemas of the running bot, so an editor pointed at a bot checks a
// file against exactly the version that will read it. Public: a schema holds no secret.
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { configJsonSchemas } from '../../config/json-schemas.ts';

export const schemaRoutes = () => {
  let built: Record<string, Record<string, unknown>> | undefined;
  return new Hono().get('/:name', (c) => {
    built ??= configJsonSchemas();
    const schema = built[c.req.param('name')];
    if (!schema)
      throw new HTTPException(404, { message: `no such schema; there are ${Object.keys(built).join(', ')}` });
    c.header('Cache-Control', 'no-cache');
    return c.json(schema);
  });
};
