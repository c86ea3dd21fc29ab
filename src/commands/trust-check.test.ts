// The trust check: answers expire, and a failed permission lookup is never kept as "untrusted".
import { describe, expect, it } from 'vitest';
import type { Forge, Permission } from '../forges/types.ts';
import { silentLogger } from '../observability/logger.ts';
import { createTrustCheck, trustTtlMs } from './trust-check.ts';

const forgeWith = (answers: (Permission | Error)[]) => {
  const asked: string[] = [];
  const forge = {
    kind: 'github',
    botLogin: 'blitz-bot[bot]',
    async getPermission(_repo: unknown, user: string) {
      asked.push(user);
      const next = answers.shift();
      if (next === undefined) throw new Error('no answer scripted');
      if (next instanceof Error) throw next;
      return next;
    },
  } as unknown as Forge;
  return { forge, asked };
};

describe('trust check', () => {
  it('a failed lookup is untrusted for that call only; the next call asks again', async () => {
    let now = 0;
    const trusted = createTrustCheck({ clock: { now: () => new Date(now) }, logger: silentLogger() });
    const { forge, asked } = forgeWith([new Error('502 from the forge'), 'write']);
    expect(await trusted(forge, 'acme/app', 'alice')).toBe(false);
    now += 1;
    expect(await trusted(forge, 'acme/app', 'alice')).toBe(true);
    expect(asked).toEqual(['alice', 'alice']);
  });

  it('keeps an answer until it expires, then asks again', async () => {
    let now = 0;
    const trusted = createTrustCheck({ clock: { now: () => new Date(now) }, logger: silentLogger() });
    const { forge, asked } = forgeWith(['read', 'write']);
    expect(await trusted(forge, 'acme/app', 'bob')).toBe(false);
    now += trustTtlMs - 1;
    expect(await trusted(forge, 'acme/app', 'Bob')).toBe(false);
    expect(asked).toEqual(['bob']);
    now += 1;
    expect(await trusted(forge, 'acme/app', 'bob')).toBe(true);
    expect(asked).toEqual(['bob', 'bob']);
  });

  it('the bot itself is trusted without a lookup; the cache holds at most `max` answers', async () => {
    const trusted = createTrustCheck({ clock: { now: () => new Date(0) }, logger: silentLogger(), max: 2 });
    const { forge, asked } = forgeWith(['write', 'write', 'write', 'write']);
    expect(await trusted(forge, 'acme/app', 'blitz-bot[bot]')).toBe(true);
    expect(asked).toEqual([]);
    await trusted(forge, 'acme/app', 'a');
    await trusted(forge, 'acme/app', 'b');
    await trusted(forge, 'acme/app', 'c');
    await trusted(forge, 'acme/app', 'a');
    expect(asked).toEqual(['a', 'b', 'c', 'a']);
  });
});
