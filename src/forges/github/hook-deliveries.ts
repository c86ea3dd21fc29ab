// The GitHub App's own webhook deliveries, asked with the App's JWT: `GET /app/hook/deliveries`
// (newest first, cursor pagination through the Link header) and `POST /app/hook/deliveries/{id}/attempts`
// (redeliver one). GitHub never redelivers a failed delivery by itself; intake/recover.ts decides which
// ones to ask for. Answers are checked with zod; the key never leaves this module.
import { z } from 'zod';
import { type AppCredentials, appOctokit } from './installation.ts';

const itemSchema = z.object({
  id: z.number().int(),
  guid: z.string().min(1).max(200),
  delivered_at: z.string(),
  redelivery: z.boolean(),
  status: z.string(),
  status_code: z.number().int(),
  event: z.string(),
  action: z.string().nullable(),
});

/** One attempt at delivering an event (a redelivery is a new attempt with the event's guid). */
export interface HookDelivery {
  /** This attempt's id: what a redelivery names. */
  id: number;
  /** The event's id, the `X-GitHub-Delivery` header the bot records: shared by every attempt. */
  guid: string;
  deliveredAt: string;
  redelivery: boolean;
  /** `OK` when the bot answered 2xx; anything else is a failed attempt. */
  status: string;
  statusCode: number;
  event: string;
}

export interface HookDeliveriesPage {
  deliveries: HookDelivery[];
  /** The cursor of the next (older) page, when there is one. */
  next?: string;
}

export interface AppHookDeliveries {
  /** One page of the App's deliveries, newest first. */
  list(opts: { perPage: number; cursor?: string }): Promise<HookDeliveriesPage>;
  /** Asks GitHub to deliver attempt `id` again (GitHub answers 202 and sends it later). */
  redeliver(id: number): Promise<void>;
}

/** The `cursor` of a Link header's `rel="next"` target. */
export const nextCursor = (link: string | undefined): string | undefined => {
  for (const part of link?.split(',') ?? []) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (!m?.[1]) continue;
    try {
      return new URL(m[1]).searchParams.get('cursor') ?? undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
};

export const createAppHookDeliveries = (opts: AppCredentials): AppHookDeliveries => {
  const octokit = appOctokit(opts);
  return {
    async list({ perPage, cursor }) {
      const res = await octokit.rest.apps.listWebhookDeliveries({
        per_page: perPage,
        ...(cursor ? { cursor } : {}),
      });
      const items = z.array(itemSchema).parse(res.data);
      const next = nextCursor(res.headers.link);
      return {
        deliveries: items.map((d) => ({
          id: d.id,
          guid: d.guid,
          deliveredAt: d.delivered_at,
          redelivery: d.redelivery,
          status: d.status,
          statusCode: d.status_code,
          event: d.event,
        })),
        ...(next ? { next } : {}),
      };
    },
    async redeliver(id) {
      await octokit.rest.apps.redeliverWebhookDelivery({ delivery_id: id });
    },
  };
};
