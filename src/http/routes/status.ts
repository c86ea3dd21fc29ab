// The status pages (runs, run, attempt, report, stats), their login, live updates and static assets,
// mounted at the root of the app. Off (404 with a plain notice) unless STATUS_TOKEN is set; then
// every page but the login form and the assets needs the token. Each page renders the object the
// JSON API serves for it (status/api-data.ts), so a page and /api/v1 cannot disagree.
import { createHash } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import { z } from 'zod';
import { securityHeaders, statusAccess } from '../../status/access.ts';
import { loginPage, offPage } from '../../status/access-pages.ts';
import { buildAttempt, buildRunList, buildRunResource, buildStats } from '../../status/api-data.ts';
import { mermaidScript, pageScript } from '../../status/assets.ts';
import { attemptPage } from '../../status/attempt-page.ts';
import { parseAttemptTimeline } from '../../status/attempt-timeline.ts';
import { faviconIco } from '../../status/favicon.ts';
import { budgetRows } from '../../status/forge-budget.ts';
import { reportHtml } from '../../status/report.ts';
import { runPage } from '../../status/run-page.ts';
import { runnerRows } from '../../status/runners-section.ts';
import { runsPage } from '../../status/runs-page.ts';
import {
  issueSession,
  safeNext,
  sessionCookieName,
  sessionSeconds,
  tokenMatches,
} from '../../status/session.ts';
import { statsPage } from '../../status/stats-page.ts';
import type { StatusDeps } from '../../status/status-deps.ts';
import { runEventStream } from './status-events.ts';

export type { StatusDeps };

const statusPaths = ['/', '/runs/*', '/stats', '/login', '/logout', '/status/*'];

const loginForm = z.object({
  token: z.string().max(4096),
  next: z.string().max(2048).optional(),
});

const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64');

export const statusRoutes = (deps: StatusDeps | undefined) => {
  const app = new Hono();
  // Per path, not '*': mounted at the root, a '*' middleware would also wrap the webhook routes.
  for (const path of statusPaths) app.use(path, securityHeaders());
  // Browsers ask for it on every page, the login form and the "off" notice included.
  app.get('/favicon.ico', (c) =>
    c.body(new Uint8Array(faviconIco()), 200, {
      'content-type': 'image/x-icon',
      'cache-control': 'public, max-age=86400',
    }),
  );
  const token = deps?.token;
  if (!deps || !token) {
    for (const path of statusPaths) app.all(path, (c) => c.html(offPage(), 404));
    return app;
  }
  const now = deps.now ?? (() => new Date());
  const log = deps.logger.child({ component: 'status' });
  const stream = runEventStream({ events: deps.events, maxStreams: deps.maxStreams ?? 100, logger: log });

  app.get('/status/assets/mermaid.min.js', (c) =>
    c.body(mermaidScript(), 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=86400',
    }),
  );
  app.get('/status/assets/status.js', (c) =>
    c.body(pageScript, 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-cache',
    }),
  );
  app.get('/login', (c) => c.html(loginPage({ next: safeNext(c.req.query('next')), failed: false })));
  app.post('/login', async (c) => {
    const form = loginForm.safeParse(await c.req.parseBody().catch(() => ({})));
    if (!form.success) return c.html(loginPage({ next: '/', failed: true }), 400);
    const next = safeNext(form.data.next);
    if (!tokenMatches(token, form.data.token)) {
      log.info({ path: '/login' }, 'status login refused');
      return c.html(loginPage({ next, failed: true }), 401);
    }
    const https = new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
    setCookie(c, sessionCookieName, issueSession(token, now()), {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      maxAge: sessionSeconds,
      secure: https,
    });
    log.info('status login');
    return c.redirect(next, 303);
  });
  app.post('/logout', (c) => {
    setCookie(c, sessionCookieName, '', { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: 0 });
    return c.redirect('/login', 303);
  });

  const guard = statusAccess({ token, now });
  app.use('/', guard);
  app.use('/runs/*', guard);
  app.use('/stats', guard);

  const ports = {
    runs: deps.runs,
    ledger: deps.ledger,
    dashboardOf: deps.events.latestDashboard,
    ...(deps.links ? { links: deps.links } : {}),
    ...(deps.prices ? { prices: deps.prices } : {}),
  };
  app.get('/', async (c) =>
    c.html(
      runsPage(
        (await buildRunList(ports)).runs,
        await deps.deliveries.listFailedDeliveries(),
        deps.budget ? budgetRows(deps.budget) : [],
        deps.runners ? runnerRows(await deps.runners.listTokens()) : [],
      ),
    ),
  );
  app.get('/stats', async (c) => {
    const runId = c.req.query('run');
    if (runId !== undefined && !(await deps.runs.getRun(runId))) return noRun(c);
    return c.html(statsPage(await buildStats(ports, runId)));
  });

  const noRun = (c: Context) => c.html('<!doctype html><title>No such run</title><p>No such run.</p>', 404);

  app.get('/runs/:id', async (c) => {
    const found = await buildRunResource(ports, c.req.param('id'));
    return found ? c.html(runPage(found.detail)) : noRun(c);
  });
  app.get('/runs/:id/events', async (c) => {
    const runId = c.req.param('id');
    if (!(await deps.runs.getRun(runId))) return noRun(c);
    return stream(c, runId);
  });
  app.get('/runs/:id/attempts/:n', async (c) => {
    const runId = c.req.param('id');
    const n = z.coerce.number().int().positive().safeParse(c.req.param('n'));
    const found = n.success ? await buildAttempt(ports, runId, n.data) : undefined;
    if (!found?.attempt || !found.record)
      return c.html('<!doctype html><title>No such attempt</title><p>No such attempt.</p>', 404);
    const [prompt, logText] = await Promise.all([
      deps.readLog(found.record.promptPath),
      deps.readLog(found.record.logPath),
    ]);
    return c.html(
      attemptPage({
        runId,
        attempt: found.attempt,
        ...(prompt ? { prompt } : {}),
        ...(logText ? { log: logText, timeline: parseAttemptTimeline(logText.text) } : {}),
      }),
    );
  });
  app.get('/runs/:id/report.html', async (c) => {
    const found = await buildRunResource(ports, c.req.param('id'));
    if (!found) return noRun(c);
    const v = found.detail;
    const timelines = new Map<number, ReturnType<typeof parseAttemptTimeline>>();
    for (const [i, a] of found.records.entries()) {
      const text = await deps.readLog(a.logPath);
      if (text) timelines.set(i + 1, parseAttemptTimeline(text.text));
    }
    const mermaid = mermaidScript();
    const body = await reportHtml({ view: v, timelines, mermaid, generatedAt: now() });
    const scripts = [...body.toString().matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
      (m) => `'sha256-${sha256(m[1]!)}'`,
    );
    const headers: Record<string, string> = {
      'content-security-policy': `default-src 'none'; script-src ${scripts.join(' ')}; style-src 'unsafe-inline'; img-src data:; font-src data:`,
    };
    if (c.req.query('download') !== undefined)
      headers['content-disposition'] =
        `attachment; filename="blitz-run-${v.run.id.replace(/[^A-Za-z0-9_-]/g, '_')}.html"`;
    return c.html(body, 200, headers);
  });
  return app;
};
