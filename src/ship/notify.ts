// The notifier port and its wiring: what a ship or a block tells the operator's phone (seed 000 §6),
// as plain data, sent to every configured target. A failed notification is a value the run shows on
// its dashboard; it never throws into the run.

import type { Notifier, NotifyResult, ShipNotice } from './notice.ts';
import { createHomeAssistantNotifier, type HomeAssistantTarget } from './notify-home-assistant.ts';
import type { PostOptions } from './notify-http.ts';
import { createWebhookNotifier } from './notify-webhook.ts';

export type { BlockedNotice, Notifier, NotifyResult, ReadyNotice, ShipNotice, ShipPath } from './notice.ts';

/** Sends to every notifier at once; never rejects. */
export const notifyAll = async (
  notifiers: readonly Notifier[],
  notice: ShipNotice,
  signal?: AbortSignal,
): Promise<NotifyResult[]> =>
  Promise.all(
    notifiers.map((n) =>
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

export interface NotifyTargets {
  /** From blitz.config.yml `notify.homeAssistant`, with the token already read from `tokenEnv`. */
  homeAssistant?: { url: string; service: string; token: string | undefined; tokenEnv?: string };
  webhook?: { url: string };
}

/**
 * Builds the notifiers from plain config values. A target that cannot work (no token, a bad service
 * name) is left out and described in `problems`, for the dashboard; the other targets still work.
 */
export const buildNotifiers = (
  targets: NotifyTargets,
  post: PostOptions = {},
): { notifiers: Notifier[]; problems: string[] } => {
  const notifiers: Notifier[] = [];
  const problems: string[] = [];
  const ha = targets.homeAssistant;
  if (ha) {
    if (!ha.token) {
      problems.push(
        `Home Assistant notify is configured but its token is empty (set ${ha.tokenEnv ?? 'the token variable'}).`,
      );
    } else {
      const made = createHomeAssistantNotifier(
        { url: ha.url, service: ha.service, token: ha.token } satisfies HomeAssistantTarget,
        post,
      );
      if (made.ok) notifiers.push(made.notifier);
      else problems.push(made.error);
    }
  }
  if (targets.webhook) {
    const made = createWebhookNotifier({ url: targets.webhook.url }, post);
    if (made.ok) notifiers.push(made.notifier);
    else problems.push(made.error);
  }
  return { notifiers, problems };
};
