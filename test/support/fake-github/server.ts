// A fake GitHub (REST under /api/v3, GraphQL at /api/graphql, as on GitHub Enterprise Server) over a
// World, listening on 127.0.0.1. Every request is checked against api.github.com's OpenAPI description
// or GitHub's GraphQL schema, and every JSON response against the same document: a request the real
// API would refuse, an endpoint the fake does not implement, or a response the real API would not send
// is recorded as a violation (and answered 500), and `assertNoViolations()` fails the test.
import { createHash, createVerify } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { OpenApiContract, type Operation } from '../contract/openapi.ts';
import type { World, WorldRepo } from '../world.ts';
import {
  heldNow,
  holds,
  installationPermissionsOf,
  missingPermissionAnswer,
  type PermissionChanges,
  type PermissionLevel,
  permissionNeeded,
} from './app-permissions.ts';
import { grantCovers, mintInstallationToken, type TokenGrant } from './app-tokens.ts';
import { type Handler, type HandlerResult, HttpFailure } from './context.ts';
import { runGraphql } from './graphql.ts';
import { type AppWebhook, createAppWebhook } from './hook-deliveries.ts';
import { appJson, repoInstallationJson } from './rest-apps.ts';
import { checkHandlers } from './rest-checks.ts';
import { issueHandlers } from './rest-issues.ts';
import { pullHandlers } from './rest-pulls.ts';
import { repoHandlers } from './rest-repos.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** `graphql` for GraphQL requests, the OpenAPI operationId otherwise (undefined when not in the spec). */
  operationId?: string;
  /** The Accept header, where one was sent: a PR read as a diff is `pulls/get` too. */
  accept?: string;
  status: number;
}

export interface Failure {
  status: number;
  headers?: Record<string, string>;
  message?: string;
  /** Only requests whose `METHOD path` matches. */
  match?: RegExp;
}

export interface FakeGithubOptions {
  /** Static tokens the fake accepts, each standing for a login (default: `test-token` → the World's bot). */
  tokens?: Record<string, string>;
  /** GitHub App auth: JWTs signed by this key for this app id may mint installation tokens. */
  app?: { appId: number; publicKey: string; installationId: number };
  /** The clone URL the fake advertises for a repo (default: a URL under the fake). */
  cloneUrl?: (repo: WorldRepo) => string;
  /** The App's webhook secret: what the fake signs the events it sends with (`hook`). */
  webhookSecret?: string;
  /** Primary rate limits per token (default 5000 core, 5000 graphql), one hour from the first request. */
  rateLimit?: { core?: number; graphql?: number; now?: () => number };
  /** The installation's App permissions from the start, over the default (app-permissions.ts: all the bot asks for). */
  permissions?: PermissionChanges;
}

export interface FakeGithub {
  url: string;
  apiUrl: string;
  requests: RecordedRequest[];
  violations: string[];
  /** Every installation token minted, with the repositories and permissions it was limited to. */
  installationTokens: TokenGrant[];
  /** The App's webhook: events sent to its URL and every attempt, as `GET /app/hook/deliveries` lists them. */
  hook: AppWebhook;
  /** The next `times` requests (matching `failure.match`, if given) are answered with `failure`. */
  failNext(times: number, failure: Failure): void;
  /** Drops the failures still queued: the fault is fixed. */
  clearFailures(): void;
  /**
   * Takes an App permission from the installation (`undefined`) or grants it, as an owner's choice on
   * the installation's settings page does. Tokens minted before keep what they had.
   */
  setPermission(name: string, level: PermissionLevel | undefined): void;
  assertNoViolations(): void;
  close(): Promise<void>;
}

const handlers: Record<string, Handler> = {
  ...issueHandlers,
  ...repoHandlers,
  ...pullHandlers,
  ...checkHandlers,
};

let contract: OpenApiContract | undefined;
const githubContract = (): OpenApiContract => {
  if (!contract) {
    const require = createRequire(import.meta.url);
    contract = OpenApiContract.fromFile(require.resolve('@octokit/openapi/generated/api.github.com.json'));
  }
  return contract;
};

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const verifyJwt = (jwt: string, app: NonNullable<FakeGithubOptions['app']>): boolean => {
  const [h, p, s] = jwt.split('.');
  if (!h || !p || !s) return false;
  const ok = createVerify('RSA-SHA256')
    .update(`${h}.${p}`)
    .verify(app.publicKey, Buffer.from(s, 'base64url'));
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as { iss?: unknown };
  return ok && String(claims.iss) === String(app.appId);
};

export const startFakeGithub = async (world: World, opts: FakeGithubOptions = {}): Promise<FakeGithub> => {
  const tokens = new Map(Object.entries(opts.tokens ?? { 'test-token': world.botLogin }));
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const grants = new Map<string, TokenGrant>();
  const installationTokens: TokenGrant[] = [];
  const failures: { left: number; failure: Failure }[] = [];
  let base = '';
  const hook = createAppWebhook(opts.webhookSecret ?? 'fake-github-webhook-secret');
  const installation = installationPermissionsOf(opts.permissions);
  /**
   * What a token may do: an installation token what it was minted with, less what the installation lost
   * since; a static token the installation's now.
   */
  const heldBy = (token: string) => {
    const minted = grants.get(token)?.held;
    return minted ? heldNow(minted, installation.now()) : installation.now();
  };

  const send = (res: ServerResponse, r: HandlerResult) => {
    const headers: Record<string, string> = { 'x-github-api-version-selected': '2022-11-28', ...r.headers };
    if (r.text !== undefined) {
      res.writeHead(r.status, { ...headers, 'content-type': r.contentType ?? 'text/plain' });
      res.end(r.text);
    } else if (r.body === undefined) {
      res.writeHead(r.status, headers);
      res.end();
    } else {
      res.writeHead(r.status, { ...headers, 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(r.body));
    }
  };

  const violation = (message: string): HandlerResult => {
    violations.push(message);
    return { status: 500, body: { message: `fake GitHub contract violation: ${message}` } };
  };

  // GitHub's primary rate limit per token and resource: every answer says where the budget stands;
  // a 304 to a conditional request is not counted (docs: "use conditional requests if appropriate").
  // Once a window's budget is spent GitHub refuses (`spentAnswer`) until its reset; a refusal is not
  // counted and performs nothing.
  const clock = opts.rateLimit?.now ?? Date.now;
  const budgets = new Map<string, { used: number; resetAt: number }>();
  const tokenOf = (req: IncomingMessage) =>
    String(req.headers.authorization ?? '').replace(/^(token|bearer)\s+/i, '');
  const limitOf = (resource: 'core' | 'graphql') => opts.rateLimit?.[resource] ?? 5000;
  const windowOf = (req: IncomingMessage, resource: 'core' | 'graphql') => {
    const key = `${resource} ${tokenOf(req)}`;
    let b = budgets.get(key);
    if (!b || b.resetAt <= clock()) {
      b = { used: 0, resetAt: Math.ceil((clock() + 3_600_000) / 1000) * 1000 };
      budgets.set(key, b);
    }
    return b;
  };
  const rateHeaders = (req: IncomingMessage, resource: 'core' | 'graphql', counted: boolean) => {
    const limit = limitOf(resource);
    const b = windowOf(req, resource);
    if (counted && b.used < limit) b.used += 1;
    return {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, limit - b.used)),
      'x-ratelimit-reset': String(b.resetAt / 1000),
      'x-ratelimit-used': String(b.used),
      'x-ratelimit-resource': resource,
    };
  };
  const spent = (req: IncomingMessage, resource: 'core' | 'graphql') =>
    windowOf(req, resource).used >= limitOf(resource);
  const exceeded = () =>
    `API rate limit exceeded for ${opts.app ? `installation ID ${opts.app.installationId}` : `user ID ${botUserId()}`}.`;
  const botUserId = () => world.users.get(world.botLogin.toLowerCase())?.id ?? 1;
  /**
   * GitHub's answer past the primary limit (docs, "Exceeding the rate limit"): REST is refused 403 with
   * `x-ratelimit-remaining: 0` (the headers come with every counted answer) and GitHub's error body;
   * GraphQL answers 200 with a `RATE_LIMITED` error, the shape @octokit/plugin-throttling looks for.
   */
  const spentAnswer = (resource: 'core' | 'graphql', operation?: Operation): HandlerResult => {
    if (resource === 'graphql')
      return { status: 200, body: { errors: [{ type: 'RATE_LIMITED', message: exceeded() }] } };
    const body = {
      message: exceeded(),
      documentation_url: 'https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting',
    };
    // Where the operation documents a 403, the refusal must fit it; elsewhere the description is silent.
    if (operation && ((operation.def.responses ?? {}) as Record<string, unknown>)['403']) {
      const problems = githubContract().checkResponse(operation, 403, body, 'json');
      if (problems.length) return violation(`fake's own rate-limit refusal: ${problems.join('; ')}`);
    }
    return { status: 403, body };
  };

  const handle = async (
    req: IncomingMessage,
    raw: string,
  ): Promise<{ result: HandlerResult; opId?: string; refused?: boolean }> => {
    const url = new URL(req.url ?? '/', base);
    const method = req.method ?? 'GET';
    let body: unknown;
    if (raw.length) {
      try {
        body = JSON.parse(raw);
      } catch {
        return { result: violation(`${method} ${url.pathname}: body is not JSON`) };
      }
    }
    const failure = failures.find(
      (f) => f.left > 0 && (!f.failure.match || f.failure.match.test(`${method} ${url.pathname}`)),
    );
    if (failure) {
      failure.left -= 1;
      const f = failure.failure;
      return {
        result: {
          status: f.status,
          headers: f.headers,
          body: { message: f.message ?? `fake failure ${f.status}` },
        },
      };
    }

    const auth = String(req.headers.authorization ?? '');
    const token = auth.replace(/^(token|bearer)\s+/i, '');

    if (method === 'POST' && url.pathname === '/api/graphql') {
      const actor = tokens.get(token);
      if (!actor) return { result: { status: 401, body: { message: 'Bad credentials' } }, opId: 'graphql' };
      if (spent(req, 'graphql')) return { result: spentAnswer('graphql'), opId: 'graphql', refused: true };
      const outcome = await runGraphql(
        world,
        actor,
        (body ?? {}) as { query?: unknown; variables?: unknown },
        heldBy(token),
      );
      if (outcome.invalid.length)
        return { result: violation(`GraphQL: ${outcome.invalid.join('; ')}`), opId: 'graphql' };
      return { result: { status: 200, body: outcome.response }, opId: 'graphql' };
    }

    if (!url.pathname.startsWith('/api/v3/'))
      return { result: violation(`${method} ${url.pathname} is outside /api/v3`) };
    const path = url.pathname.slice('/api/v3'.length);
    const checked = githubContract().checkRequest({ method, path, query: url.searchParams, body });
    const opId = checked.matched?.operation.operationId;
    if (checked.problems.length)
      return { result: violation(`${method} ${path}: ${checked.problems.join('; ')}`), opId };
    const { operation, pathParams } = checked.matched!;

    if (operation.operationId === 'apps/create-installation-access-token') {
      if (
        !opts.app ||
        !verifyJwt(token, opts.app) ||
        Number(pathParams.installation_id) !== opts.app.installationId
      )
        return { result: { status: 401, body: { message: 'A JSON web token could not be decoded' } }, opId };
      const minted = mintInstallationToken(
        world,
        (body ?? {}) as Record<string, unknown>,
        Date.now(),
        installation.now(),
      );
      const problems = githubContract().checkResponse(operation, minted.status, minted.body, 'json');
      if (problems.length) return { result: violation(`fake's own response: ${problems.join('; ')}`), opId };
      if (minted.grant) {
        tokens.set(minted.grant.token, world.botLogin);
        grants.set(minted.grant.token, minted.grant);
        installationTokens.push(minted.grant);
      }
      return { result: { status: minted.status, body: minted.body }, opId };
    }

    if (
      operation.operationId === 'apps/get-authenticated' ||
      operation.operationId === 'apps/list-installations'
    ) {
      if (!opts.app || !verifyJwt(token, opts.app))
        return { result: { status: 401, body: { message: 'A JSON web token could not be decoded' } }, opId };
      const urls = { web: base, api: `${base}/api/v3` };
      const first = [...world.repos.values()][0];
      const body =
        operation.operationId === 'apps/get-authenticated'
          ? appJson(world, first?.owner ?? world.botLogin, urls, opts.app)
          : first
            ? // The contract check of this list rejects the account object it accepts on the
              // single-installation answer; null is a documented account and keeps the fake honest.
              [{ ...repoInstallationJson(world, first, urls, opts.app, installation.now()), account: null }]
            : [];
      const problems = githubContract().checkResponse(operation, 200, body, 'json');
      if (problems.length) return { result: violation(`fake's own response: ${problems.join('; ')}`), opId };
      return { result: { status: 200, body }, opId };
    }

    if (
      operation.operationId === 'apps/list-webhook-deliveries' ||
      operation.operationId === 'apps/redeliver-webhook-delivery'
    ) {
      if (!opts.app || !verifyJwt(token, opts.app))
        return { result: { status: 401, body: { message: 'A JSON web token could not be decoded' } }, opId };
      const result =
        operation.operationId === 'apps/list-webhook-deliveries'
          ? hook.list(url.searchParams, `${base}/api/v3`)
          : hook.redeliver(Number(pathParams.delivery_id));
      const problems = githubContract().checkResponse(operation, result.status, result.body, 'json');
      if (problems.length) return { result: violation(`fake's own response: ${problems.join('; ')}`), opId };
      return { result, opId };
    }

    if (operation.operationId === 'apps/get-repo-installation') {
      if (!opts.app || !verifyJwt(token, opts.app))
        return { result: { status: 401, body: { message: 'A JSON web token could not be decoded' } }, opId };
      const repo = world.repo(pathParams.owner ?? '', pathParams.repo ?? '');
      const body = repo
        ? repoInstallationJson(
            world,
            repo,
            { web: base, api: `${base}/api/v3` },
            opts.app,
            installation.now(),
          )
        : { message: 'Not Found' };
      const result = { status: repo ? 200 : 404, body };
      const problems = githubContract().checkResponse(operation, result.status, result.body, 'json');
      if (problems.length) return { result: violation(`fake's own response: ${problems.join('; ')}`), opId };
      return { result, opId };
    }

    const actor = tokens.get(token);
    if (!actor) return { result: { status: 401, body: { message: 'Bad credentials' } }, opId };
    // A token minted for some repositories does not see the others: GitHub answers 404.
    if (!grantCovers(grants.get(token), pathParams.owner, pathParams.repo))
      return { result: { status: 404, body: { message: 'Not Found' } }, opId };
    if (spent(req, 'core')) return { result: spentAnswer('core', operation), opId, refused: true };
    const need = permissionNeeded(operation);
    if (need && !holds(heldBy(token), need)) {
      const refusal = missingPermissionAnswer(operation, need);
      // Where the operation documents a 403, the refusal must fit it; elsewhere the description is silent.
      if (((operation.def.responses ?? {}) as Record<string, unknown>)['403']) {
        const problems = githubContract().checkResponse(operation, 403, refusal.body, 'json');
        if (problems.length) return { result: violation(`fake's own refusal: ${problems.join('; ')}`), opId };
      }
      return { result: refusal, opId };
    }
    const handler = handlers[operation.operationId];
    if (!handler)
      return {
        result: violation(`${operation.operationId} (${method} ${path}) is not implemented by the fake`),
        opId,
      };
    let result: HandlerResult;
    try {
      result = await handler({
        world,
        urls: { web: base, api: `${base}/api/v3` },
        params: pathParams,
        query: url.searchParams,
        body: (body ?? {}) as Record<string, unknown>,
        headers: req.headers,
        actor,
        requestUrl: url,
        cloneUrl: opts.cloneUrl ?? ((r) => `${base}/${r.owner}/${r.name}.git`),
      });
    } catch (err) {
      if (err instanceof HttpFailure) result = err.result;
      else throw err;
    }
    const problems = githubContract().checkResponse(
      operation,
      result.status,
      result.body,
      result.text !== undefined ? 'text' : 'json',
    );
    if (problems.length) return { result: violation(`fake's own response: ${problems.join('; ')}`), opId };
    return { result, opId };
  };

  /**
   * GitHub's conditional requests: a GET answered 200 with JSON carries an ETag (a hash of the body, as
   * GitHub's weak ETags are); the same GET with `If-None-Match` naming the current ETag is answered 304
   * with no body. The OpenAPI description lists 304 on some operations only, but GitHub answers it on
   * every GET that sends an ETag; a 304 is only ever sent when the request's validator matches.
   */
  const conditional = (req: IncomingMessage, out: { result: HandlerResult; opId?: string }) => {
    const r = out.result;
    if (req.method !== 'GET' || r.status !== 200 || r.body === undefined || r.text !== undefined) return;
    const etag = `W/"${createHash('sha256').update(JSON.stringify(r.body)).digest('hex').slice(0, 40)}"`;
    const asked = String(req.headers['if-none-match'] ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    if (asked.includes(etag) || asked.includes('*')) {
      out.result = { status: 304, headers: { ...r.headers, etag } };
      return;
    }
    r.headers = { ...r.headers, etag };
  };

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const url = new URL(req.url ?? '/', base);
      let out: { result: HandlerResult; opId?: string; refused?: boolean };
      try {
        out = await handle(req, raw);
        conditional(req, out);
      } catch (err) {
        out = {
          result: violation(`fake GitHub crashed on ${req.method} ${url.pathname}: ${(err as Error).stack}`),
        };
      }
      if (out.result.status !== 401 && out.opId !== undefined && !out.opId.startsWith('apps/'))
        out.result.headers = {
          ...out.result.headers,
          ...rateHeaders(
            req,
            out.opId === 'graphql' ? 'graphql' : 'core',
            out.result.status !== 304 && !out.refused,
          ),
        };
      requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body: raw.length ? safeJson(raw) : undefined,
        operationId: out.opId,
        ...(req.headers.accept ? { accept: req.headers.accept } : {}),
        status: out.result.status,
      });
      send(res, out.result);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    apiUrl: `${base}/api/v3`,
    requests,
    violations,
    installationTokens,
    hook,
    failNext(times, failure) {
      failures.push({ left: times, failure });
    },
    /** Drops the failures still queued: the fault is fixed. */
    clearFailures() {
      failures.splice(0);
    },
    setPermission(name, level) {
      installation.set(name, level);
    },
    assertNoViolations() {
      if (violations.length)
        throw new Error(
          `fake GitHub saw ${violations.length} contract violation(s):\n${violations.join('\n')}`,
        );
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
};

const safeJson = (raw: string): unknown => {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
};
