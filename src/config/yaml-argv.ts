// Command lists in the config files are argv, and an argv word is text. YAML reads `-1`, `1.0`,
// `0x10` or `true` as numbers and booleans; CI systems take such scalars as the text written, and so
// does blitz-bot: a plain scalar inside a command list keeps its source text (`1.0` stays `1.0`,
// where String(1.0) would say `1`). Only the lists named here change; every other field keeps its
// YAML type, so `maxSessions: 3` is still a number.
import { type Document, isMap, isScalar, isSeq, type Node } from 'yaml';

/** A path to a command list: mapping keys, with `*` for every entry of a list (`roster.*.command`). */
export type ArgvPath = readonly string[];

const childrenAt = (node: unknown, step: string): unknown[] => {
  if (step === '*') return isSeq(node) ? node.items : [];
  if (!isMap(node)) return [];
  const pair = node.items.find((p) => isScalar(p.key) && p.key.value === step);
  return pair ? [pair.value] : [];
};

const nodesAt = (root: unknown, path: ArgvPath): unknown[] =>
  path.reduce<unknown[]>((nodes, step) => nodes.flatMap((n) => childrenAt(n, step)), [root]);

/**
 * Rewrites, in place, every plain number, boolean or null scalar of the named lists to the text that
 * was written. An empty entry (`- `) has no text and stays empty, so the schema still refuses it.
 */
export const keepArgvWordsAsText = (doc: Document, paths: readonly ArgvPath[]): void => {
  for (const path of paths) {
    for (const list of nodesAt(doc.contents, path)) {
      if (!isSeq(list)) continue;
      for (const item of list.items as Node[]) {
        if (
          isScalar(item) &&
          typeof item.value !== 'string' &&
          typeof item.source === 'string' &&
          item.source !== ''
        )
          item.value = item.source;
      }
    }
  }
};
