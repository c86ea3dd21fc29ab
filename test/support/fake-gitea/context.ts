// What a fake Gitea handler receives and returns, plus the helpers every handler needs: repository
// lookup with Gitea's visibility rules, permission checks, and Gitea-style pagination headers.
import type { World, WorldPermission, WorldRepo } from '../world.ts';

export interface HandlerContext {
  world: World;
  /** The login the token belongs to. */
  actor: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  /** Gitea's ROOT_URL: what links and clone URLs are built from (may differ from the URL the bot calls). */
  baseUrl: string;
  /** The clone URL advertised for a repo, when not the one under baseUrl (a real bare origin). */
  cloneUrl?: (repo: WorldRepo) => string;
  requestUrl: URL;
  maxPageSize: number;
  defaultPageSize: number;
}

export interface FakeResponse {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

export type Handler = (ctx: HandlerContext) => FakeResponse | Promise<FakeResponse>;

/** Thrown by handlers; the server answers `{ message, url }` with the status, as Gitea does. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const rank: Record<WorldPermission, number> = {
  none: 0,
  read: 1,
  triage: 1,
  write: 2,
  maintain: 2,
  admin: 3,
};

/** The repo in the path; 404 when it does not exist or the actor may not see it (Gitea hides private repos). */
export const repoOf = (ctx: HandlerContext): WorldRepo => {
  const repo = ctx.world.repo(ctx.params.owner ?? '', ctx.params.repo ?? '');
  if (!repo || !canRead(ctx, repo)) throw new HttpError(404, 'repository does not exist');
  return repo;
};

export const canRead = (ctx: HandlerContext, repo: WorldRepo): boolean =>
  !repo.private || rank[ctx.world.permissionOf(repo, ctx.actor)] >= 1;

export const requireWrite = (ctx: HandlerContext, repo: WorldRepo): void => {
  if (rank[ctx.world.permissionOf(repo, ctx.actor)] < 2) {
    throw new HttpError(403, `user ${ctx.actor} has no write permission on ${repo.owner}/${repo.name}`);
  }
};

export const isAdmin = (ctx: HandlerContext, repo: WorldRepo): boolean =>
  rank[ctx.world.permissionOf(repo, ctx.actor)] >= 3;

export const intParam = (ctx: HandlerContext, name: string): number => Number(ctx.params[name]);

/** The body as a plain object (the contract check already proved its shape). */
export const bodyOf = (ctx: HandlerContext): Record<string, unknown> =>
  ctx.body && typeof ctx.body === 'object' ? (ctx.body as Record<string, unknown>) : {};

/** Gitea's paging: `page` (1-based) and `limit` capped at MAX_RESPONSE_ITEMS, with `Link` and `X-Total-Count`. */
export const paginate = <T>(
  ctx: HandlerContext,
  items: T[],
): { page: T[]; headers: Record<string, string> } => {
  const pageNo = Math.max(1, Number(ctx.query.get('page') ?? 1));
  const requested = Number(ctx.query.get('limit') ?? ctx.defaultPageSize);
  const limit = Math.min(ctx.maxPageSize, requested > 0 ? requested : ctx.defaultPageSize);
  const last = Math.max(1, Math.ceil(items.length / limit));
  const link = (page: number, rel: string) => {
    const u = new URL(`${ctx.baseUrl}${ctx.requestUrl.pathname}${ctx.requestUrl.search}`);
    u.searchParams.set('page', String(page));
    u.searchParams.set('limit', String(limit));
    return `<${u.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (pageNo < last) links.push(link(pageNo + 1, 'next'), link(last, 'last'));
  if (pageNo > 1) links.push(link(1, 'first'), link(pageNo - 1, 'prev'));
  const headers: Record<string, string> = { 'x-total-count': String(items.length) };
  if (links.length > 0) headers.link = links.join(',');
  return { page: items.slice((pageNo - 1) * limit, pageNo * limit), headers };
};
