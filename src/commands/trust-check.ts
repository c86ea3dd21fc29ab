// Whether an issue's author may have their issue worked (write permission, or the bot itself). A
// permission answer is kept for a while (permissions change, so it expires); a failed lookup is never
// kept: the author counts as untrusted for that pass only, and the next pass asks again.
import { type Forge, hasPermission, repoRefOf } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';

export const trustTtlMs = 10 * 60_000;
export const trustCacheMax = 5_000;

export type TrustCheck = (forge: Forge, repo: string, author: string) => Promise<boolean>;

export const createTrustCheck = (opts: {
  clock: { now(): Date };
  logger: Pick<Logger, 'warn'>;
  ttlMs?: number;
  max?: number;
}): TrustCheck => {
  const ttl = opts.ttlMs ?? trustTtlMs;
  const max = opts.max ?? trustCacheMax;
  const cache = new Map<string, { at: number; ok: boolean }>();
  return async (forge, repo, author) => {
    // The bot's own issues (a worker's out-of-scope bug, a review finding): GitHub has no collaborator
    // permission for an App, so the login decides, as the forge adapter spells it.
    if (author.toLowerCase() === forge.botLogin.toLowerCase() && forge.botLogin !== '') return true;
    const key = `${forge.kind}:${repo.toLowerCase()}:${author.toLowerCase()}`;
    const now = opts.clock.now().getTime();
    const hit = cache.get(key);
    if (hit !== undefined && now - hit.at < ttl) return hit.ok;
    cache.delete(key);
    let permission: Awaited<ReturnType<Forge['getPermission']>>;
    try {
      permission = await forge.getPermission(repoRefOf(repo), author);
    } catch (err) {
      opts.logger.warn({ repo, author, err }, 'permission lookup failed; untrusted until it answers');
      return false;
    }
    const ok = hasPermission(permission, 'write');
    // Oldest first out: a Map keeps insertion order.
    if (cache.size >= max) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(key, { at: now, ok });
    return ok;
  };
};
