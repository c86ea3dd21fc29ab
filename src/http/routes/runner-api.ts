// /api/runner/*: the HTTP skin of the runner hub. Every route authenticates the bearer token first
// (401 and nothing recorded when it is wrong or revoked), then checks the body with zod (400).
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { AppError } from '../../errors.ts';
import { runnerClockHeader } from '../../remote-runner/clock-skew.ts';
import type { RunnerHub } from '../../remote-runner/hub.ts';
import {
  attemptReportSchema,
  claimRequestSchema,
  completeRequestSchema,
  failRequestSchema,
  heartbeatRequestSchema,
  refuseRequestSchema,
  runnerAdvertSchema,
} from '../../remote-runner/schema.ts';
import type { RunnerTokenInfo } from '../../store/runner-tokens.ts';

type Env = { Variables: { runner: RunnerTokenInfo } };

const parseBody = async <S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> => {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new AppError('bad_request', 'The body must be JSON.');
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError('bad_request', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
};

export const runnerApiRoutes = (opts: { hub: RunnerHub; maxBytes?: number }) => {
  const app = new Hono<Env>();
  app.use('*', async (c, next) => {
    c.set(
      'runner',
      await opts.hub.authenticate(c.req.header('authorization'), c.req.header(runnerClockHeader)),
    );
    await next();
  });
  app.use(
    '*',
    bodyLimit({
      maxSize: opts.maxBytes ?? 1024 * 1024,
      onError: () => {
        throw new AppError('payload_too_large', 'The body is too large.');
      },
    }),
  );
  app.post('/register', async (c) =>
    c.json(await opts.hub.register(c.get('runner'), await parseBody(c, runnerAdvertSchema))),
  );
  app.post('/claim', async (c) => {
    const body = await parseBody(c, claimRequestSchema);
    return c.json({ job: await opts.hub.claim(c.get('runner'), body.job) });
  });
  app.post('/heartbeat', async (c) => {
    const body = await parseBody(c, heartbeatRequestSchema);
    await opts.hub.heartbeat(c.get('runner'), body.job);
    return c.json({ ok: true });
  });
  app.post('/complete', async (c) => {
    const body = await parseBody(c, completeRequestSchema);
    return c.json(await opts.hub.complete(c.get('runner'), body.job, body.output));
  });
  app.post('/fail', async (c) => {
    const body = await parseBody(c, failRequestSchema);
    return c.json(await opts.hub.fail(c.get('runner'), body.job, body.error));
  });
  app.post('/refuse', async (c) => {
    const body = await parseBody(c, refuseRequestSchema);
    return c.json(await opts.hub.refuse(c.get('runner'), body.job, body.reason));
  });
  app.post('/reports', async (c) =>
    c.json(await opts.hub.report(c.get('runner'), await parseBody(c, attemptReportSchema))),
  );
  return app;
};
