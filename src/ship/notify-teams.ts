// Microsoft Teams through a Workflows webhook ("When a Teams webhook request is received"): a message
// with one Adaptive Card attachment (title, sentence, facts, an Open action). The old Office 365
// connector MessageCard is retired; Workflows take Adaptive Cards.
import {
  noticeCommand,
  noticeResetAt,
  noticeSentence,
  noticeTally,
  noticeTitle,
  type RunNotice,
} from './notice.ts';
import { jsonWebhookNotifier } from './notifier-of.ts';

export const teamsBody = (notice: RunNotice) => ({
  type: 'message',
  attachments: [
    {
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
      content: {
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
        type: 'AdaptiveCard',
        version: '1.4',
        body: [
          { type: 'TextBlock', text: noticeTitle(notice), weight: 'Bolder', size: 'Medium', wrap: true },
          { type: 'TextBlock', text: noticeSentence(notice), wrap: true },
          {
            type: 'FactSet',
            facts: [
              { title: 'Repository', value: notice.repo },
              ...(notice.issue !== undefined ? [{ title: 'Issue', value: `#${notice.issue}` }] : []),
              { title: 'Run', value: notice.run.id },
              { title: 'Progress', value: noticeTally(notice) },
              ...(noticeResetAt(notice) ? [{ title: 'Resets at', value: noticeResetAt(notice)! }] : []),
              ...(noticeCommand(notice) ? [{ title: 'To continue', value: noticeCommand(notice)! }] : []),
            ],
          },
        ],
        ...(notice.url
          ? {
              actions: [
                {
                  type: 'Action.OpenUrl',
                  title: notice.event === 'shipped' ? 'Open preview' : 'Open run',
                  url: notice.url,
                },
              ],
            }
          : {}),
      },
    },
  ],
});

export const createTeamsNotifier = jsonWebhookNotifier('Teams workflow', teamsBody);
