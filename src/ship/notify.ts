// The notifier port and its wiring: what a run tells the operator's chat or phone (seed 000 §6), as
// plain data, sent to every configured target that asked for the event. A failed notification is a
// value the run shows on its dashboard; it never throws into the run.
import type { Notifier, NotifyEvent, NotifyResult, RunNotice } from './notice.ts';
import type { Made } from './notifier-of.ts';
import { createDiscordNotifier } from './notify-discord.ts';
import { createHomeAssistantNotifier } from './notify-home-assistant.ts';
import type { PostOptions } from './notify-http.ts';
import { createMatrixNotifier } from './notify-matrix.ts';
import { createNtfyNotifier, type NtfyPriority } from './notify-ntfy.ts';
import { createSlackNotifier } from './notify-slack.ts';
import { createTeamsNotifier } from './notify-teams.ts';
import { createWebhookNotifier } from './notify-webhook.ts';

export type { Notifier, NotifyEvent, NotifyResult, RunNotice, ShipPath } from './notice.ts';

/** Sends to every notifier that takes the notice's event (any, for `test`), all at once; never rejects. */
export const notifyAll = async (
  notifiers: readonly Notifier[],
  notice: RunNotice,
  signal?: AbortSignal,
): Promise<NotifyResult[]> =>
  Promise.all(
    notifiers
      // A test notice goes to every target it is given, whatever events the target chose.
      .filter((n) => notice.event === 'test' || n.events.has(notice.event))
      .map((n) =>
        n.notify(notice, signal).catch(
          (): NotifyResult => ({
            ok: false,
            target: n.target,
            attempts: 0,
            error: 'notifier failed unexpectedly',
          }),
        ),
      ),
  );

interface Named {
  name: string;
  events: readonly NotifyEvent[];
}
/**
 * One target of blitz.config.yml `notify:` with its secrets read (config/notify-targets.ts): a value
 * is undefined when its variable is unset, and `…Env` says which variable that was.
 */
export type NotifyTargetValue = Named &
  (
    | { type: 'slack' | 'discord' | 'teams'; url: string | undefined; urlEnv?: string }
    | {
        type: 'webhook';
        url: string | undefined;
        urlEnv?: string;
        /** The key its body is signed with (X-Blitz-Signature-256); undefined when unset or not asked for. */
        secret?: string | undefined;
        secretEnv?: string;
      }
    | {
        type: 'ntfy';
        url: string | undefined;
        urlEnv?: string;
        token?: string | undefined;
        tokenEnv?: string;
        priority?: NtfyPriority;
      }
    | { type: 'matrix'; homeserver: string; roomId: string; token: string | undefined; tokenEnv: string }
    | { type: 'homeAssistant'; url: string; service: string; token: string | undefined; tokenEnv?: string }
  );

const unset = (t: Named, what: string, env: string | undefined): string =>
  `Notify target ${t.name} is configured but its ${what} is empty (set ${env ?? 'its variable'}).`;

const make = (t: NotifyTargetValue, post: PostOptions): Made => {
  switch (t.type) {
    case 'slack':
    case 'discord':
    case 'teams': {
      if (!t.url) return { ok: false, error: unset(t, 'URL', t.urlEnv) };
      const target = { name: t.name, url: t.url, events: t.events };
      if (t.type === 'slack') return createSlackNotifier(target, post);
      if (t.type === 'discord') return createDiscordNotifier(target, post);
      return createTeamsNotifier(target, post);
    }
    case 'webhook':
      if (!t.url) return { ok: false, error: unset(t, 'URL', t.urlEnv) };
      // A target that asked to be signed is never sent unsigned.
      if (t.secretEnv && !t.secret) return { ok: false, error: unset(t, 'signing secret', t.secretEnv) };
      return createWebhookNotifier(
        { name: t.name, url: t.url, events: t.events, ...(t.secret ? { secret: t.secret } : {}) },
        post,
      );
    case 'ntfy':
      if (!t.url) return { ok: false, error: unset(t, 'topic URL', t.urlEnv) };
      if (t.tokenEnv && !t.token) return { ok: false, error: unset(t, 'token', t.tokenEnv) };
      return createNtfyNotifier(
        {
          name: t.name,
          url: t.url,
          events: t.events,
          ...(t.token ? { token: t.token } : {}),
          ...(t.priority ? { priority: t.priority } : {}),
        },
        post,
      );
    case 'matrix':
      if (!t.token) return { ok: false, error: unset(t, 'access token', t.tokenEnv) };
      return createMatrixNotifier({ ...t, token: t.token }, post);
    case 'homeAssistant':
      if (!t.token) return { ok: false, error: unset(t, 'token', t.tokenEnv) };
      return createHomeAssistantNotifier({ ...t, token: t.token }, post);
  }
};

/**
 * Builds the notifiers from plain config values. A target that cannot work (no token, a bad service
 * name) is left out and described in `problems`, for the log; the other targets still work.
 */
export const buildNotifiers = (
  targets: readonly NotifyTargetValue[],
  post: PostOptions = {},
): { notifiers: Notifier[]; problems: string[] } => {
  const notifiers: Notifier[] = [];
  const problems: string[] = [];
  for (const t of targets) {
    const made = make(t, post);
    if (made.ok) notifiers.push(made.notifier);
    else problems.push(made.error);
  }
  return { notifiers, problems };
};
