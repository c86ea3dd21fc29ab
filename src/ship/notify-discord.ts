// Discord channel webhook: `POST <webhook URL>` with one embed (title, description, link, colour by
// event, fields for where and the tally). `allowed_mentions.parse: []` so `@everyone` in a milestone
// title pings no one. Discord answers 204, and 429 with Retry-After when it limits the rate.
import {
  type NoticeEvent,
  noticeCommand,
  noticeResetAt,
  noticeSentence,
  noticeTally,
  noticeTitle,
  noticeWhere,
  type RunNotice,
} from './notice.ts';
import { jsonWebhookNotifier } from './notifier-of.ts';

const colours: Record<NoticeEvent, number> = {
  started: 0x5865f2,
  parked: 0x99aab5,
  blocked: 0xfee75c,
  needs_person: 0xfee75c,
  shipped: 0x57f287,
  failed: 0xed4245,
  review_unclear: 0xeb459e,
  warning: 0xf0b232,
  test: 0x99aab5,
};

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export const discordBody = (notice: RunNotice) => ({
  allowed_mentions: { parse: [] as string[] },
  embeds: [
    {
      title: clip(noticeTitle(notice), 256),
      description: clip(noticeSentence(notice), 4096),
      ...(notice.url ? { url: notice.url } : {}),
      color: colours[notice.event],
      fields: [
        { name: 'Where', value: clip(noticeWhere(notice), 1024), inline: true },
        { name: 'Progress', value: clip(noticeTally(notice), 1024), inline: true },
        ...(noticeResetAt(notice)
          ? [{ name: 'Resets at', value: noticeResetAt(notice)!, inline: true }]
          : []),
        ...(noticeCommand(notice)
          ? [{ name: 'To continue', value: clip(`\`${noticeCommand(notice)!.replaceAll('`', "'")}\``, 1024) }]
          : []),
      ],
    },
  ],
});

export const createDiscordNotifier = jsonWebhookNotifier('Discord webhook', discordBody);
