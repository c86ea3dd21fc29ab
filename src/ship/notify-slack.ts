// Slack incoming webhook: `POST <webhook URL>` with Block Kit blocks and a top-level `text`, which
// Slack shows in notifications and to screen readers. Run text is escaped for mrkdwn (`&`, `<`, `>`),
// so a milestone titled `<!channel>` mentions no one.
import {
  noticeCommand,
  noticeResetAt,
  noticeSentence,
  noticeTally,
  noticeTitle,
  noticeWhere,
  type RunNotice,
} from './notice.ts';
import { jsonWebhookNotifier } from './notifier-of.ts';

const escapeMrkdwn = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

// A backtick cannot close the code span early: the command is our own text, but still kept inert.
const nextElements = (notice: RunNotice) => {
  const reset = noticeResetAt(notice);
  const command = noticeCommand(notice);
  return [
    ...(reset ? [{ type: 'mrkdwn', text: `Resets at ${reset}` }] : []),
    ...(command
      ? [{ type: 'mrkdwn', text: `To continue: \`${escapeMrkdwn(command.replaceAll('`', "'"))}\`` }]
      : []),
  ];
};

export const slackBody = (notice: RunNotice) => {
  const title = noticeTitle(notice);
  const sentence = noticeSentence(notice);
  return {
    text: `${title}: ${sentence}`,
    blocks: [
      // Header text is plain_text, at most 150 characters.
      { type: 'header', text: { type: 'plain_text', text: clip(title, 150), emoji: true } },
      { type: 'section', text: { type: 'mrkdwn', text: clip(escapeMrkdwn(sentence), 3000) } },
      {
        type: 'context',
        elements: [
          { type: 'mrkdwn', text: escapeMrkdwn(`${noticeWhere(notice)} · ${noticeTally(notice)}`) },
          ...nextElements(notice),
        ],
      },
      ...(notice.url
        ? [
            {
              type: 'actions',
              elements: [
                {
                  type: 'button',
                  text: {
                    type: 'plain_text',
                    text: notice.event === 'shipped' ? 'Open preview' : 'Open run',
                  },
                  url: notice.url,
                },
              ],
            },
          ]
        : []),
    ],
  };
};

export const createSlackNotifier = jsonWebhookNotifier('Slack webhook', slackBody);
