// A whole intake stack for tests: the real Hono app, receiver, queue and processor over a real SQLite
// store (in memory), with a recording forge that answers only the calls intake is expected to make
// and throws on any other, and a logger whose lines the test can read.
import { Writable } from 'node:stream';
import { Webhooks } from '@octokit/webhooks';
import { normalizeGithubPermission } from '../../src/commands/authorize.ts';
import type { Forge, ForgeKind, Permission, Reaction, RepoRef } from '../../src/forges/types.ts';
import { createApp } from '../../src/http/app.ts';
import { createDeliveryQueue } from '../../src/intake/delivery-queue.ts';
import { createEventProcessor } from '../../src/intake/process-events.ts';
import { createReceiver } from '../../src/intake/receive.ts';
import { loadRepoPolicy } from '../../src/intake/repo-policy.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/types.ts';
import { githubExample, signedGithubRequest } from './signing.ts';

export const GITHUB_SECRET = 'github-test-secret';

/** A writer's `/blitz M1` comment as GitHub signs it, with its own delivery id and comment id. */
export const signedCommand = (deliveryId: string, commentId: number) => {
  const p = githubExample('issue_comment', 'created');
  const comment = p.comment as Record<string, unknown>;
  comment.body = '/blitz M1';
  comment.id = commentId;
  comment.user = { ...(comment.user as object), login: 'alice', type: 'User' };
  p.sender = { ...(p.sender as object), login: 'alice', type: 'User' };
  return signedGithubRequest({ secret: GITHUB_SECRET, event: 'issue_comment', payload: p, deliveryId });
};
export const GITEA_SECRET = 'gitea-test-secret';
export const BOT_LOGIN = 'blitz-bot[bot]';

export type ForgeCall =
  | { method: 'getPermission'; repo: string; user: string }
  | { method: 'reactToComment'; repo: string; commentId: number; reaction: Reaction }
  | { method: 'createComment'; issue: string; body: string }
  | { method: 'getFile'; repo: string; path: string };

/**
 * A forge that knows each user's role (GitHub role names, normalised the way the adapter does) and
 * records getPermission, reactToComment and createComment. Any other method throws.
 */
export const recordingForge = (
  kind: ForgeKind,
  roles: Record<string, string>,
  files?: Record<string, string | undefined>,
) => {
  const calls: ForgeCall[] = [];
  let nextComment = 9000;
  const known: Record<string, unknown> = {
    kind,
    async getPermission(repo: RepoRef, user: string): Promise<Permission> {
      calls.push({ method: 'getPermission', repo: `${repo.owner}/${repo.name}`, user });
      return normalizeGithubPermission({ permission: 'none', role_name: roles[user] ?? 'none' });
    },
    async reactToComment(repo: RepoRef, commentId: number, reaction: Reaction): Promise<void> {
      calls.push({ method: 'reactToComment', repo: `${repo.owner}/${repo.name}`, commentId, reaction });
    },
    async createComment(ref: { repo: RepoRef; number: number }, body: string) {
      calls.push({
        method: 'createComment',
        issue: `${ref.repo.owner}/${ref.repo.name}#${ref.number}`,
        body,
      });
      const now = new Date().toISOString();
      return { id: nextComment++, body, author: BOT_LOGIN, createdAt: now, updatedAt: now };
    },
  };
  // getFile is only expected when the test gives the repository files.
  if (files) {
    known.getFile = async (repo: RepoRef, path: string): Promise<string | undefined> => {
      calls.push({ method: 'getFile', repo: `${repo.owner}/${repo.name}`, path });
      return files[path];
    };
  }
  const forge = new Proxy(known, {
    get(target, prop, receiver) {
      if (prop in target || typeof prop === 'symbol' || prop === 'then')
        return Reflect.get(target, prop, receiver);
      return () => {
        throw new Error(`unexpected forge call: ${String(prop)}`);
      };
    },
  }) as unknown as Forge;
  return { forge, calls };
};

export const createHarness = (
  opts: {
    roles?: Record<string, string>;
    allowedBots?: string[];
    /** Share a store between two harnesses, as a restarted bot shares its database file. */
    store?: Store;
    /** Repository files (by path): given, the repository's blitz.yml takes part in authorisation. */
    repoFiles?: Record<string, string | undefined>;
    /** Forges whose comments are marked by id as they are taken (what recovery after an outage reads). */
    commentMarks?: ForgeKind[];
    /** Awaited each time processing asks for a forge (a test holds a delivery mid-processing with it). */
    onForge?: (target: { forge: ForgeKind; installationId?: number }) => Promise<void>;
  } = {},
) => {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      done();
    },
  });
  const logger = createLogger({ level: 'debug', destination });
  const store = opts.store ?? openSqliteStore(':memory:');
  const metrics = createMetrics();
  const queue = createDeliveryQueue({ logger });
  const github = recordingForge('github', opts.roles ?? {}, opts.repoFiles);
  const gitea = recordingForge('gitea', opts.roles ?? {}, opts.repoFiles);
  const resolved: { forge: ForgeKind; installationId?: number }[] = [];
  const policy = (botLogin: string) => ({
    required: 'write' as const,
    botLogin,
    allowedBots: opts.allowedBots ?? [],
  });
  const process = createEventProcessor({
    store,
    logger,
    metrics,
    forges: async (target) => {
      resolved.push(target);
      await opts.onForge?.(target);
      return target.forge === 'github' ? github.forge : gitea.forge;
    },
    policies: { github: policy(BOT_LOGIN), gitea: policy('blitz-bot') },
    ...(opts.repoFiles ? { repoPolicy: loadRepoPolicy } : {}),
    ...(opts.commentMarks ? { commentMarks: opts.commentMarks } : {}),
  });
  const receive = createReceiver({ store, queue, process, metrics, logger });
  const webhooks = new Webhooks({ secret: GITHUB_SECRET });
  const app = createApp({
    store,
    metrics,
    logger,
    version: '0.0.0-test',
    receive,
    github: { verify: (payload, signature) => webhooks.verify(payload, signature) },
    gitea: { webhookSecret: GITEA_SECRET },
  });
  const post = (path: string, req: { body: string | ReadableStream; headers: Record<string, string> }) =>
    app.request(path, {
      method: 'POST',
      body: req.body,
      headers: req.headers,
      ...({ duplex: 'half' } as object),
    });
  return {
    app,
    store,
    metrics,
    queue,
    logger,
    lines,
    github,
    gitea,
    resolved,
    receive,
    post,
    intake: { store, queue, process, metrics, logger },
  };
};
