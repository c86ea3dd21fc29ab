import { describe, expect, it } from 'vitest';
import type { Permission } from '../forges/types.ts';
import {
  type Actor,
  type AuthPolicy,
  decidePermission,
  decideSender,
  normalizeGiteaPermission,
  normalizeGithubPermission,
  refusalText,
} from './authorize.ts';

const policy = (extra: Partial<AuthPolicy> = {}): AuthPolicy => ({
  required: 'write',
  botLogin: 'blitz-bot[bot]',
  allowedBots: [],
  ...extra,
});
const user = (login: string): Actor => ({ login, type: 'User' });
const bot = (login: string): Actor => ({ login, type: 'Bot' });

describe('decideSender', () => {
  it.each<[string, Actor, AuthPolicy]>([
    ['the GitHub App itself', bot('blitz-bot[bot]'), policy()],
    ['the App with different case', bot('Blitz-Bot[bot]'), policy()],
    [
      'the App when configured without the [bot] suffix',
      bot('blitz-bot[bot]'),
      policy({ botLogin: 'blitz-bot' }),
    ],
    ['the Gitea token user, a plain user account', user('blitzbot'), policy({ botLogin: 'blitzbot' })],
    ['itself even when allow-listed', bot('blitz-bot[bot]'), policy({ allowedBots: ['blitz-bot[bot]'] })],
  ])('ignores %s silently, with no reply', (_why, actor, p) => {
    expect(decideSender(actor, p)).toEqual({ allowed: false, reason: 'self' });
  });

  it('does not mistake a person whose login equals the app slug for the app', () => {
    expect(decideSender(user('blitz-bot'), policy())).toBe('needs_permission');
  });

  it.each<[string, Actor]>([
    ['another GitHub App', bot('renovate[bot]')],
    ['a bot-typed account without the suffix', bot('ci-runner')],
    ['a [bot] login reported as a user', user('dependabot[bot]')],
    ['an organisation', { login: 'acme', type: 'Organization' }],
  ])('ignores %s silently', (_why, actor) => {
    expect(decideSender(actor, policy())).toEqual({ allowed: false, reason: 'bot' });
  });

  it.each<[string, Actor, string[]]>([
    ['listed with its suffix', bot('renovate[bot]'), ['renovate[bot]']],
    ['listed without its suffix', bot('renovate[bot]'), ['renovate']],
    ['listed in another case', bot('Renovate[bot]'), ['renovate[bot]']],
    ['a Gitea bot account (a user) listed by login', user('ci-bot'), ['ci-bot']],
  ])('sends an allow-listed bot to the permission check when %s', (_why, actor, allowedBots) => {
    expect(decideSender(actor, policy({ allowedBots }))).toBe('needs_permission');
  });

  it('does not let a bot through on another bot being listed', () => {
    expect(decideSender(bot('evil[bot]'), policy({ allowedBots: ['renovate[bot]'] }))).toEqual({
      allowed: false,
      reason: 'bot',
    });
  });

  it('sends every person to the permission check', () => {
    expect(decideSender(user('alice'), policy())).toBe('needs_permission');
  });
});

describe('decidePermission: the matrix', () => {
  const levels: Permission[] = ['admin', 'write', 'read', 'none'];
  const rank: Record<Permission, number> = { none: 0, read: 1, write: 2, admin: 3 };
  const cases = levels.flatMap((actual) =>
    (['admin', 'write', 'read'] as Permission[]).map((required) => [actual, required] as const),
  );

  it.each(cases)('%s permission against required %s', (actual, required) => {
    const decision = decidePermission(actual, policy({ required }), 'alice');
    if (rank[actual] >= rank[required]) {
      expect(decision).toEqual({ allowed: true });
    } else {
      expect(decision).toEqual({
        allowed: false,
        reason: 'insufficient_permission',
        reply: refusalText('alice', required),
      });
    }
  });

  it.each<[string, { permission: string; role_name?: string }, boolean]>([
    ['admin', { permission: 'admin', role_name: 'admin' }, true],
    ['maintain', { permission: 'write', role_name: 'maintain' }, true],
    ['write', { permission: 'write', role_name: 'write' }, true],
    ['triage', { permission: 'read', role_name: 'triage' }, false],
    ['read', { permission: 'read', role_name: 'read' }, false],
    ['none', { permission: 'none' }, false],
    ['a custom role on a write base', { permission: 'write', role_name: 'release-manager' }, true],
    ['a custom role on a read base', { permission: 'read', role_name: 'auditor' }, false],
  ])('a GitHub %s collaborator %s command under the default policy', (_role, answer, allowed) => {
    expect(decidePermission(normalizeGithubPermission(answer), policy(), 'alice').allowed).toBe(allowed);
  });
});

describe('normalizeGithubPermission', () => {
  it.each<[{ permission: string; role_name?: string }, Permission]>([
    [{ permission: 'admin', role_name: 'admin' }, 'admin'],
    [{ permission: 'write', role_name: 'maintain' }, 'write'],
    [{ permission: 'maintain' }, 'write'],
    [{ permission: 'write' }, 'write'],
    [{ permission: 'read', role_name: 'triage' }, 'read'],
    [{ permission: 'triage' }, 'read'],
    [{ permission: 'read' }, 'read'],
    [{ permission: 'none' }, 'none'],
    [{ permission: 'ADMIN' }, 'admin'],
    [{ permission: 'superuser' }, 'none'],
    [{ permission: '' }, 'none'],
    [{ permission: '__proto__' }, 'none'],
  ])('%j is %s', (answer, expected) => {
    expect(normalizeGithubPermission(answer)).toBe(expected);
  });
});

describe('normalizeGiteaPermission', () => {
  it.each<[string, Permission]>([
    ['owner', 'admin'],
    ['admin', 'admin'],
    ['write', 'write'],
    ['read', 'read'],
    ['none', 'none'],
    ['maintain', 'none'],
    ['constructor', 'none'],
  ])('%s is %s', (permission, expected) => {
    expect(normalizeGiteaPermission({ permission })).toBe(expected);
  });
});

describe('refusalText', () => {
  it('is one short polite sentence naming only the level needed', () => {
    const text = refusalText('alice', 'write');
    expect(text).toBe(
      '@alice Sorry, only people with write access to this repository can run blitz-bot commands, so I have not done anything.',
    );
    expect(text).not.toMatch(/\n|triage|maintain|admin|read/);
  });

  it('does not echo a login that could carry markup', () => {
    const text = refusalText('x](http://evil)', 'admin');
    expect(text).not.toContain('evil');
    expect(text).toMatch(/^Sorry, only people with admin access/);
  });
});
