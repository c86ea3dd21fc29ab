// What each command accepts, in the words of a reply: the usage shown under a parse error and the
// `/blitz help` answer. The argument descriptions follow the workflows the commands come from.
import { MAX_CONCURRENCY, MAX_FLEET_REFS, MAX_TELL_CHARS, MAX_WAVES } from './schema.ts';

export const commandUsage: Record<string, string> = {
  blitz: [
    '/blitz [milestone] [--deploy | --local] [--max N] [--tool T] [--model M] [--dry-run]',
    '/blitz status | pause | resume | cancel | help',
    '/blitz retry | skip | unhold <issue>',
    '/blitz tell <issue> <message>',
    '/blitz review | accept-review',
  ].join('\n'),
  'ticket-fleet': [
    '/ticket-fleet <ticket> [<ticket> …] [label:<name> …]',
    '/ticket-fleet merge <pull request>',
    '/ticket-fleet resume',
  ].join('\n'),
  merge: '/merge [--when-green]',
  review: '/review',
  'plan-blitz': ['/plan-blitz [milestone | #issue …] [--waves N] [--dry-run]', '/plan-blitz resume'].join(
    '\n',
  ),
};

const sections = [
  '### blitz-bot commands',
  '',
  'Write a command at the start of a line of a comment; commands inside quotes or code are ignored.',
  '',
  '**`/blitz [milestone]`**: drive a whole milestone to done: one worker per issue, in dependency order,',
  'merged into `blitz/<milestone>`, then shipped and announced. `milestone` is its number (`3`) or part',
  'of its title (`M1`, `"Milestone 1"`); without it, the lowest-numbered open milestone with open issues.',
  '- `--deploy` / `--local`: ship by deploying, or with a local preview (default: decided per milestone,',
  '  local when unsure)',
  `- \`--max N\`: at most N workers at once (1 to ${MAX_CONCURRENCY})`,
  '- `--tool T`, `--model M`: use this agent tool or model for every issue of the run',
  '- `--dry-run`: post the plan and run nothing',
  '',
  '**`/blitz status | pause | resume | cancel | help`**: report on, pause, resume or cancel the run of this',
  'repository (cancel stops the workers and keeps their branches), or show this help.',
  '',
  'Steering a run (people with write access only; `<issue>` is `#12`, `12` or an issue link):',
  '- **`/blitz retry <issue>`**: give a held, failed or stalled issue a fresh attempt',
  '- **`/blitz skip <issue>`**: leave the issue out of this run (it stays open)',
  '- **`/blitz unhold <issue>`**: lift the hold on an issue so it can be worked on again',
  `- **\`/blitz tell <issue> <message>\`**: give the issue's worker a message (up to ${MAX_TELL_CHARS} characters),`,
  '  at its next resume or by a nudge',
  '- **`/blitz review`**: run the integration review again',
  '- **`/blitz accept-review`**: accept an unclear integration review and go on to the readiness gate',
  '',
  `**\`/ticket-fleet <tickets>\`**: one worker and one pull request per ticket, up to ${MAX_FLEET_REFS}.`,
  'Tickets are `#9`, `repo#9`, `owner/repo#9` or issue links; `label:<name>` adds the open issues with',
  "that label. **`/ticket-fleet resume`** (on the fleet's issue): a paused or parked fleet goes on.",
  '',
  '**`/merge`** (on a fleet pull request) or **`/ticket-fleet merge #PR`**: merge it. Nothing is merged',
  'without this word from a person. **`/merge --when-green`**: merge it once its CI has completed green.',
  '',
  '**`/review`** (on a pull request): run a review leg and post its findings as a comment.',
  '',
  '**`/plan-blitz [milestone | #issues] [--waves N] [--dry-run]`**: write a reviewed plan for each issue',
  `of a milestone (or the issues named), in N waves (1 to ${MAX_WAVES}, default 1); \`--dry-run\` shows`,
  'the waves without planning. **`/plan-blitz resume`**: a paused or parked plan run goes on.',
];

export const helpText = (): string => sections.join('\n');
