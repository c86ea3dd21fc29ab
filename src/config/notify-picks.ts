// A repository's pick of the operator's notify targets (`notify:` in blitz.yml names them): which of the
// configured notifiers a run of that repository tells. A name the operator has not configured is a
// config error naming it and the names there are, like any other bad field: nothing is sent to a
// target nobody meant, and nobody is left untold by a typo.
import { inlineCode } from '../commands/quote.ts';
import type { BlitzConfig } from './blitz-config.ts';
import type { ConfigError } from './repo-config.ts';

/** The names the operator's notify targets go by (`name`, else their type), as the notifiers carry them. */
export const operatorTargetNames = (notify: BlitzConfig['notify']): string[] =>
  notify.map((t) => t.name ?? t.type);

/** One error per picked name the operator has no target for. */
export const unknownNotifyPicks = (
  picks: readonly string[] | undefined,
  operator: readonly string[],
): ConfigError[] =>
  (picks ?? []).flatMap((name, i) => {
    if (operator.includes(name)) return [];
    const path = `notify[${i}]`;
    const there =
      operator.length === 0
        ? 'but the operator configured none (blitz.config.yml `notify:`)'
        : `which the operator did not configure; there are: ${operator.join(', ')}`;
    return [
      { path, message: `${inlineCode(path, 40)} names the notify target ${inlineCode(name, 80)}, ${there}` },
    ];
  });

/** The notifiers a run tells: those its repository picked by name, or all of them when it picked none. */
export const pickedNotifiers = <N extends { readonly target: string }>(
  notifiers: readonly N[],
  picks: readonly string[] | undefined,
): N[] => (picks === undefined ? [...notifiers] : notifiers.filter((n) => picks.includes(n.target)));
