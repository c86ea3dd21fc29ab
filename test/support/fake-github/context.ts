// What a REST handler of the fake GitHub gets and returns, plus the small helpers they share
// (pagination with Link headers, GitHub-shaped errors, permission checks over the World).
import type { World, WorldIssue, WorldRepo } from '../world.ts';
import type { Urls } from './serialize.ts';

export interface HandlerContext {
  world: World;
  urls: Urls;
  params: Record<string, string>;
  query: URLSearchParams;
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** The login the request's token stands for. */
  actor: string;
  /** The full URL of the request, for Link headers. */
  requestUrl: URL;
  cloneUrl(repo: WorldRepo): string;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  /** A non-JSON body (diffs). */
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export type Handler = (ctx: HandlerContext) => HandlerResult | Promise<HandlerResult>;

const docs = 'https://docs.github.com/rest';

export const error = (status: number, message: string): HandlerResult => ({
  status,
  body: { message, documentation_url: docs, status: String(status) },
});

export class HttpFailure extends Error {
  constructor(readonly result: HandlerResult) {
    super(String((result.body as { message?: string } | undefined)?.message ?? result.status));
  }
}

export const fail = (status: number, message: string): never => {
  throw new HttpFailure(error(status, message));
};

export const repoOf = (ctx: HandlerContext): WorldRepo =>
  ctx.world.repo(ctx.params.owner!, ctx.params.repo!) ?? fail(404, 'Not Found');

export const issueOf = (ctx: HandlerContext, repo: WorldRepo, key = 'issue_number'): WorldIssue =>
  repo.issues.get(Number(ctx.params[key])) ?? fail(404, 'Not Found');

/** GitHub answers 403 "Resource not accessible by integration" when the app lacks a write permission. */
export const mustWrite = (ctx: HandlerContext, repo: WorldRepo): void => {
  const p = ctx.world.permissionOf(repo, ctx.actor);
  if (p !== 'write' && p !== 'maintain' && p !== 'admin') fail(403, 'Resource not accessible by integration');
};

export const mustRead = (ctx: HandlerContext, repo: WorldRepo): void => {
  if (repo.private && ctx.world.permissionOf(repo, ctx.actor) === 'none') fail(404, 'Not Found');
};

/** One page of `items` and the Link header GitHub sends with it. */
export const paginate = <T>(
  ctx: HandlerContext,
  items: T[],
): { page: T[]; headers: Record<string, string> } => {
  const perPage = Math.min(100, Number(ctx.query.get('per_page') ?? 30));
  const page = Math.max(1, Number(ctx.query.get('page') ?? 1));
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number, rel: string) => {
    const url = new URL(ctx.requestUrl);
    url.searchParams.set('page', String(n));
    return `<${url.href}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
  return {
    page: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length ? { link: links.join(', ') } : {},
  };
};
