// `blitz-bot notify test [NAME] [--config FILE] [--json]`: sends one test message (event `test`, no
// run behind it) to each notify target of the operator config, or to the one named, and says per
// target whether the service accepted it. Exit 0 every target accepted, 1 a target refused or could
// not be built (its variable unset…), 2 bad arguments or no such target. Nothing else is touched.
import { parseArgs } from 'node:util';
import { closestMatch } from '../commands/did-you-mean.ts';
import { loadBlitzConfig } from '../config/blitz-config.ts';
import { notifyTargetsFrom } from '../config/notify-targets.ts';
import { testNotice } from './notice.ts';
import { buildNotifiers, notifyAll } from './notify.ts';
import type { PostOptions } from './notify-http.ts';

export const notifyUsage = 'usage: blitz-bot notify test [NAME] [--config FILE] [--json]';

export interface NotifyCliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** The environment to read; process.env by default (through config/). */
  env?: Record<string, string | undefined>;
  /** How requests go out; one attempt by default, so a test answers at once. */
  post?: PostOptions;
}

export interface TargetOutcome {
  target: string;
  type: string;
  accepted: boolean;
  /** Why not, in words naming the target by origin only; absent when accepted. */
  error?: string;
}

const defaultIo: NotifyCliIo = { out: (t) => console.log(t), err: (t) => console.error(t) };
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export const runNotifyCli = async (args: string[], io: NotifyCliIo = defaultIo): Promise<number> => {
  let parsed: { values: { config?: string; json?: boolean; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      options: {
        config: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    io.err(`${messageOf(err)}\n${notifyUsage}`);
    return 2;
  }
  if (parsed.values.help) {
    io.out(notifyUsage);
    return 0;
  }
  const [verb, name, ...extra] = parsed.positionals;
  if (verb !== 'test' || extra.length > 0) {
    io.err(notifyUsage);
    return 2;
  }
  // Undefined: config/ reads process.env itself (the only module that does).
  const env = io.env;
  let config: ReturnType<typeof loadBlitzConfig>;
  try {
    config = loadBlitzConfig(parsed.values.config, env);
  } catch (err) {
    io.err(messageOf(err));
    return 1;
  }
  const all = notifyTargetsFrom(config.notify, env).targets ?? [];
  if (all.length === 0) {
    io.err('No notify targets are configured (`notify:` in blitz.config.yml): nothing to test.');
    return 1;
  }
  const names = all.map((t) => t.name);
  const chosen = name === undefined ? all : all.filter((t) => t.name === name);
  if (chosen.length === 0) {
    const near = closestMatch(name ?? '', names);
    io.err(
      `No notify target is called ${name}${near ? ` (did you mean \`${near}\`?)` : ''}; configured: ${names.join(', ')}.`,
    );
    return 2;
  }
  const notice = testNotice(config.publicUrl);
  const outcomes = await Promise.all(
    chosen.map(async (t): Promise<TargetOutcome> => {
      const { notifiers, problems } = buildNotifiers([t], { attempts: 1, ...io.post });
      const notifier = notifiers[0];
      if (!notifier) return { target: t.name, type: t.type, accepted: false, error: problems.join(' ') };
      const [result] = await notifyAll([notifier], notice);
      if (result?.ok) return { target: t.name, type: t.type, accepted: true };
      return { target: t.name, type: t.type, accepted: false, error: result?.error ?? 'not sent' };
    }),
  );
  const allAccepted = outcomes.every((o) => o.accepted);
  if (parsed.values.json) io.out(JSON.stringify({ ok: allAccepted, targets: outcomes }, null, 2));
  else
    io.out(
      outcomes
        .map((o) =>
          o.accepted ? `✓ ${o.target} (${o.type}): accepted` : `✗ ${o.target} (${o.type}): ${o.error}`,
        )
        .join('\n'),
    );
  return allAccepted ? 0 : 1;
};
