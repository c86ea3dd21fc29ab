// A fake Gitea for integration tests: a real HTTP server on 127.0.0.1 over a World. Every request
// is checked against Gitea's swagger (method, path, query, body) and every answer against the same
// document's response schema; anything off-contract, or an operation this fake does not implement,
// is answered 500/501 and recorded as a violation that `assertNoViolations()` turns into a failure.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SwaggerContract } from '../contract/swagger.ts';
import type { World, WorldRepo } from '../world.ts';
import { type FakeResponse, type Handler, type HandlerContext, HttpError } from './context.ts';
import { checkHandlers } from './handlers-checks.ts';
import { issueHandlers } from './handlers-issues.ts';
import { pullHandlers } from './handlers-pulls.ts';
import { repoHandlers } from './handlers-repo.ts';

const contractFile = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../contracts/gitea-swagger-v1.22.json',
);

const contracts = new Map<string, SwaggerContract>();
/** The parsed swagger, loaded once per process and file (compiled schemas are cached on it). */
export const giteaContract = (file = contractFile): SwaggerContract => {
  let contract = contracts.get(file);
  if (!contract) {
    contract = SwaggerContract.fromFile(file);
    contracts.set(file, contract);
  }
  return contract;
};

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  operationId?: string;
  body?: unknown;
  status: number;
}

export interface InjectedFailure {
  status: number;
  /** Only requests to this operation fail (any operation when absent). */
  operationId?: string;
  /** Only requests whose `METHOD path` matches (the path as sent: `/api/v1/repos/…`). */
  match?: RegExp;
  /** How many matching requests fail; Infinity for "forever". */
  times?: number;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
}

export interface FakeGiteaOptions {
  /** token → login; default one token for the World's bot. */
  tokens?: Record<string, string>;
  /** Gitea's MAX_RESPONSE_ITEMS (50) and DEFAULT_PAGING_NUM (30). */
  maxPageSize?: number;
  defaultPageSize?: number;
  /** Gitea's ROOT_URL, for links, html and clone URLs; default the fake's own URL. */
  rootUrl?: string;
  /** The clone URL advertised for a repo (default: a URL under the root URL). */
  cloneUrl?: (repo: WorldRepo) => string;
  /** The swagger to check against; default the repository's copy of Gitea 1.22's. */
  contractFile?: string;
}

export interface FakeGitea {
  /** The Gitea root URL (what GITEA_URL holds); the API lives under `${url}/api/v1`. */
  url: string;
  token: string;
  requests: RecordedRequest[];
  violations: string[];
  failNext(failure: InjectedFailure): void;
  /** Drops the failures still queued: the fault is fixed. */
  clearFailures(): void;
  assertNoViolations(): void;
  /** Requests whose operation matches, e.g. `count('issueListIssueDependencies')`. */
  count(operationId?: string): number;
  close(): Promise<void>;
}

export const defaultFakeGiteaToken = 'gitea-test-token';

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

export const startFakeGitea = async (world: World, opts: FakeGiteaOptions = {}): Promise<FakeGitea> => {
  const contract = giteaContract(opts.contractFile);
  const tokens = opts.tokens ?? { [defaultFakeGiteaToken]: world.botLogin };
  const handlers: Record<string, Handler> = {
    ...issueHandlers,
    ...repoHandlers,
    ...pullHandlers,
    ...checkHandlers,
  };
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const failures: (InjectedFailure & { left: number })[] = [];
  let baseUrl = '';

  const send = (res: ServerResponse, out: FakeResponse) => {
    const headers: Record<string, string> = { ...out.headers };
    let payload = '';
    if (out.text !== undefined) {
      payload = out.text;
      headers['content-type'] ??= 'text/plain; charset=utf-8';
    } else if (out.json !== undefined) {
      payload = JSON.stringify(out.json);
      headers['content-type'] = 'application/json;charset=utf-8';
    }
    headers['content-length'] = String(Buffer.byteLength(payload));
    res.writeHead(out.status, headers).end(payload);
  };

  const handle = async (req: IncomingMessage): Promise<{ out: FakeResponse; rec: RecordedRequest }> => {
    const url = new URL(req.url ?? '/', baseUrl);
    const raw = await readBody(req);
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
    };
    const error = (status: number, message: string): FakeResponse => ({
      status,
      json: { message, url: `${baseUrl}/api/swagger` },
    });
    const violation = (status: number, message: string): FakeResponse => {
      violations.push(message);
      return error(status, `fake gitea contract violation: ${message}`);
    };
    if (!url.pathname.startsWith(contract.basePath))
      return { out: violation(500, `not an API path: ${url.pathname}`), rec };
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      return { out: violation(500, `${rec.method} ${url.pathname}: body is not JSON`), rec };
    }
    rec.body = body;
    const path = url.pathname.slice(contract.basePath.length);
    const checked = contract.validateRequest({
      method: rec.method,
      path,
      query: url.searchParams,
      body,
      hasBody: raw !== '',
    });
    rec.operationId = checked.match?.operation.operationId;
    if (checked.errors.length > 0) return { out: violation(500, checked.errors.join('; ')), rec };
    const { operation, pathParams } = checked.match!;

    const auth = /^token (.+)$/.exec(req.headers.authorization ?? '');
    const actor = auth ? tokens[auth[1]!] : undefined;
    if (!actor) return { out: error(401, 'token is required'), rec };

    const failure = failures.find(
      (f) =>
        (!f.operationId || f.operationId === operation.operationId) &&
        (!f.match || f.match.test(`${rec.method} ${url.pathname}`)),
    );
    if (failure) {
      failure.left -= 1;
      if (failure.left <= 0) failures.splice(failures.indexOf(failure), 1);
      const out = error(failure.status, `injected failure ${failure.status}`);
      if (failure.retryAfter !== undefined) out.headers = { 'retry-after': String(failure.retryAfter) };
      return { out, rec };
    }

    const handler = handlers[operation.operationId];
    if (!handler) {
      return {
        out: violation(501, `${operation.operationId} is in the swagger but not expected by this fake`),
        rec,
      };
    }
    const ctx: HandlerContext = {
      world,
      actor,
      params: pathParams,
      query: url.searchParams,
      body,
      baseUrl: opts.rootUrl ?? baseUrl,
      ...(opts.cloneUrl ? { cloneUrl: opts.cloneUrl } : {}),
      requestUrl: url,
      maxPageSize: opts.maxPageSize ?? 50,
      defaultPageSize: opts.defaultPageSize ?? 30,
    };
    let out: FakeResponse;
    try {
      out = await handler(ctx);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      out = error(err.status, err.message);
    }
    // Gitea's middleware answers 401/403 on any route, though the swagger lists them per operation only sometimes.
    if (out.status !== 401 && out.status !== 403) {
      const problems = contract.validateResponse(operation, out.status, out.text ?? out.json);
      if (problems.length > 0)
        return { out: violation(500, `fake response off contract: ${problems.join('; ')}`), rec };
    }
    return { out, rec };
  };

  const server = createServer((req, res) => {
    handle(req)
      .then(({ out, rec }) => {
        rec.status = out.status;
        requests.push(rec);
        send(res, out);
      })
      .catch((err: unknown) => {
        violations.push(`fake gitea crashed on ${req.method} ${req.url}: ${String(err)}`);
        send(res, { status: 500, json: { message: 'fake gitea crashed' } });
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: baseUrl,
    token: Object.keys(tokens)[0] ?? defaultFakeGiteaToken,
    requests,
    violations,
    failNext: (failure) => failures.push({ ...failure, left: failure.times ?? 1 }),
    clearFailures: () => {
      failures.splice(0);
    },
    assertNoViolations: () => {
      if (violations.length > 0)
        throw new Error(`fake Gitea saw contract violations:\n${violations.join('\n')}`);
    },
    count: (operationId) =>
      requests.filter((r) => operationId === undefined || r.operationId === operationId).length,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
};
