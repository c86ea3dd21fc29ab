// The JSON API under /api/v1: runs, a run with its issues, waves and attempts, one attempt, stats.
// Guarded like the status pages (a Bearer STATUS_TOKEN or the login cookie) and off without the
// token. Routes are declared with @hono/zod-openapi: the same zod schemas validate the parameters,
// parse every response body, and generate the OpenAPI document served at /api/v1/openapi.json.
// The bodies are built by status/api-data.ts, the same builders the HTML status pages render.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { statusAccess } from '../../status/access.ts';
import { buildAttempt, buildRunDetail, buildRunList, buildStats } from '../../status/api-data.ts';
import {
  attemptSchema,
  errorSchema,
  runDetailSchema,
  runListSchema,
  statsSchema,
} from '../../status/api-schemas.ts';
import type { StatusDeps } from '../../status/status-deps.ts';

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});
// Every route answers these besides its own: a parameter that does not parse, no token, the API off.
const refused = {
  400: json(errorSchema, 'A parameter does not parse (`error: bad_request`, the message says which)'),
  401: json(errorSchema, 'No valid STATUS_TOKEN (Bearer header or the status login cookie)'),
};
const off = 'The API is off (no STATUS_TOKEN is set)';

const runId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/)
  .openapi({ param: { name: 'id', in: 'path' }, example: '1a2b3c4d' });

const listRuns = createRoute({
  method: 'get',
  path: '/runs',
  summary: 'All runs, newest first; `?live=true` for the live ones only',
  request: {
    query: z.object({
      live: z
        .enum(['true', 'false'])
        .optional()
        .openapi({ param: { name: 'live', in: 'query' } }),
    }),
  },
  responses: { 200: json(runListSchema, 'The runs'), 404: json(errorSchema, off), ...refused },
});

const getRun = createRoute({
  method: 'get',
  path: '/runs/{id}',
  summary: 'One run with its issues, waves and attempts',
  request: { params: z.object({ id: runId }) },
  responses: {
    200: json(runDetailSchema, 'The run'),
    404: json(errorSchema, `No such run, or: ${off}`),
    ...refused,
  },
});

const getAttempt = createRoute({
  method: 'get',
  path: '/runs/{id}/attempts/{n}',
  summary: 'One attempt of a run, by its 1-based position',
  request: {
    params: z.object({
      id: runId,
      n: z.coerce
        .number()
        .int()
        .min(1)
        .max(100_000)
        .openapi({ param: { name: 'n', in: 'path' }, example: 1 }),
    }),
  },
  responses: {
    200: json(attemptSchema, 'The attempt'),
    404: json(errorSchema, `No such run or attempt, or: ${off}`),
    ...refused,
  },
});

const getStats = createRoute({
  method: 'get',
  path: '/stats',
  summary: 'Attempt statistics over every run, or one run with `?run=`',
  request: {
    query: z.object({ run: runId.optional().openapi({ param: { name: 'run', in: 'query' } }) }),
  },
  responses: {
    200: json(statsSchema, 'The statistics'),
    404: json(errorSchema, `No such run, or: ${off}`),
    ...refused,
  },
});

const notFound = (message: string) => ({ error: 'not_found', message });

export const apiV1Routes = (deps: StatusDeps | undefined) => {
  const app = new OpenAPIHono({
    // A parameter that does not parse is a 400 in the API's own error shape.
    defaultHook: (result, c) => {
      if (!result.success)
        return c.json(
          {
            error: 'bad_request',
            message: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
          },
          400,
        );
    },
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'statusToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'STATUS_TOKEN',
  });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'blitz-bot API',
      version: 'v1',
      description: 'The runs, issues, attempts and stats the status pages show.',
    },
    servers: [{ url: '/api/v1' }],
    security: [{ statusToken: [] }],
  });
  const token = deps?.token;
  if (!deps || !token) {
    app.all('*', (c) => c.json(notFound('the API is off: set STATUS_TOKEN to turn it on'), 404));
    return app;
  }
  const ports = {
    runs: deps.runs,
    ledger: deps.ledger,
    dashboardOf: deps.events.latestDashboard,
    ...(deps.links ? { links: deps.links } : {}),
    ...(deps.prices ? { prices: deps.prices } : {}),
  };
  const guard = statusAccess({ token, now: deps.now ?? (() => new Date()), refusal: 'json' });
  app.use('/runs', guard);
  app.use('/runs/*', guard);
  app.use('/stats', guard);

  app.openapi(listRuns, async (c) =>
    c.json(await buildRunList(ports, { live: c.req.valid('query').live === 'true' }), 200),
  );
  app.openapi(getRun, async (c) => {
    const detail = await buildRunDetail(ports, c.req.valid('param').id);
    if (!detail) return c.json(notFound('no such run'), 404);
    return c.json(detail, 200);
  });
  app.openapi(getAttempt, async (c) => {
    const { id, n } = c.req.valid('param');
    const found = await buildAttempt(ports, id, n);
    if (!found?.attempt) return c.json(notFound(found ? 'no such attempt' : 'no such run'), 404);
    return c.json(found.attempt, 200);
  });
  app.openapi(getStats, async (c) => {
    const { run } = c.req.valid('query');
    if (run && !(await deps.runs.getRun(run))) return c.json(notFound('no such run'), 404);
    return c.json(await buildStats(ports, run), 200);
  });
  return app;
};
