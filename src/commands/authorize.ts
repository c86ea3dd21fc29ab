// Who may command the bot: pure decisions over the sender and their repository permission. The
// bot's own events and other bots are dropped silently (a reply to a bot starts a loop); a person
// below the required level gets one short refusal that names only the level they would need.
import { hasPermission, type Permission } from '../forges/types.ts';

export type { Permission } from '../forges/types.ts';

export interface Actor {
  login: string;
  type: 'User' | 'Bot' | 'Organization';
}

export interface AuthPolicy {
  /** Lowest permission that may command the bot (repo config `permission`, default write). */
  required: Permission;
  /** The bot's own login: `<app-slug>[bot]` on GitHub, the token's user on Gitea. */
  botLogin: string;
  /** Bots whose commands are read at all (repo config `allowedBots`); they still need the permission. */
  allowedBots: string[];
}

export type AuthDecision =
  | { allowed: true }
  | { allowed: false; reason: 'self' | 'bot' | 'insufficient_permission'; reply?: string };

// `renovate[bot]` and `renovate` name the same app: GitHub shows the suffix, config files often don't.
const bare = (login: string): string =>
  login
    .trim()
    .toLowerCase()
    .replace(/\[bot\]$/, '');
const isBotLogin = (login: string): boolean => /\[bot\]$/i.test(login.trim());

const isSelf = (actor: Actor, botLogin: string): boolean => {
  if (actor.login.trim().toLowerCase() === botLogin.trim().toLowerCase()) return true;
  // Only an account that is a bot may match by bare name: a person called `blitz-bot` is not the app.
  return (actor.type === 'Bot' || isBotLogin(actor.login)) && bare(actor.login) === bare(botLogin);
};

/**
 * The checks that need no API call. `needs_permission` means a person: ask the forge for their
 * permission and finish with decidePermission.
 */
export const decideSender = (actor: Actor, policy: AuthPolicy): AuthDecision | 'needs_permission' => {
  if (isSelf(actor, policy.botLogin)) return { allowed: false, reason: 'self' };
  const botLike = actor.type !== 'User' || isBotLogin(actor.login);
  const allowListed = policy.allowedBots.some((b) => bare(b) === bare(actor.login));
  // Being listed only means "read its commands": a listed bot is asked for its permission like a person.
  // (Gitea reports bot accounts as users; an operator lists those in allowedBots too.)
  if (botLike && !allowListed) return { allowed: false, reason: 'bot' };
  return 'needs_permission';
};

const levelWords: Record<Permission, string> = {
  admin: 'admin',
  write: 'write',
  read: 'read',
  none: 'any',
};

// Logins are narrow on both forges; anything else is not echoed, so a reply can never carry markup.
const mention = (login: string): string =>
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(login) ? `@${login} ` : '';

export const refusalText = (login: string, required: Permission): string =>
  `${mention(login)}Sorry, only people with ${levelWords[required]} access to this repository can run ` +
  'blitz-bot commands, so I have not done anything.';

export const decidePermission = (actual: Permission, policy: AuthPolicy, login: string): AuthDecision =>
  hasPermission(actual, policy.required)
    ? { allowed: true }
    : { allowed: false, reason: 'insufficient_permission', reply: refusalText(login, policy.required) };

export { normalizeGiteaPermission } from '../forges/gitea/mappers.ts';
// The forge adapters own the mapping of each forge's permission answer (one place for each).
export { normalizeGithubPermission } from '../forges/github/mappers.ts';
