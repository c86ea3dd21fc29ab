// Epic detection: tracking issues that are never dispatched and close when their children do.
import type { PlanGraph } from './graph.ts';
import { stateOf } from './graph.ts';
import type { ExternalBlocker, IssueKey, PlanIssue } from './types.ts';
import { keyOf } from './types.ts';

const epicWord = /\bepic\b/i;
const checklistRef = /^[-*+]\s+\[[ xX]\]\s+(?:[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)?#\d+\b/;
const heading = /^#{1,6}\s/;

/** True when every non-blank line is a checklist item starting with an issue ref (headings allowed). */
export const isChecklistOnly = (body: string): boolean => {
  if (!body.includes('[')) return false;
  let items = 0;
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (line === '' || heading.test(line)) continue;
    if (!checklistRef.test(line)) return false;
    items++;
  }
  return items > 0;
};

export const isEpic = (issue: PlanIssue, subIssueCount: number): boolean =>
  epicWord.test(issue.title) || isChecklistOnly(issue.body) || subIssueCount > 0;

/** An epic's children: its blockers and its sub-issues. */
export const epicChildren = (g: PlanGraph, k: IssueKey): IssueKey[] => {
  const all = new Set([...(g.blockers.get(k) ?? []), ...(g.subIssues.get(k) ?? [])]);
  return [...all];
};

/**
 * An open epic is closable when it has at least one child and every child is closed. An epic with
 * no children at all is left open (and explained): closing it would be a guess.
 */
export const epicClosable = (g: PlanGraph, k: IssueKey): boolean => {
  const children = epicChildren(g, k);
  return children.length > 0 && children.every((c) => stateOf(g, c) === 'closed');
};

/**
 * Close on merge: the epics among `issues` (a milestone's open issues) that list `child` among their
 * children (blockers and sub-issues) and whose other children are all closed now that `child` is. A
 * child neither open here nor known closed outside (`external`) keeps its epic open.
 */
export const parentsClosableBy = (
  issues: readonly PlanIssue[],
  external: readonly ExternalBlocker[],
  child: IssueKey,
): IssueKey[] => {
  const open = new Set(issues.map(keyOf));
  const state = new Map(external.map((b) => [b.key, b.state]));
  return issues
    .filter((epic) => {
      const children = [...epic.blockedBy, ...epic.children];
      if (!isEpic(epic, epic.children.length) || !children.includes(child)) return false;
      return children.every((c) => c === child || (!open.has(c) && state.get(c) === 'closed'));
    })
    .map(keyOf);
};
