// The GraphQL node ids of issues the adapter has read or made (a milestone load, a REST issue read or
// create: a blocker issue the bot filed), so that a mutation on one of them (its closing comment and
// the close, in one request) needs no read first. Bounded, oldest out; an unknown id only means the
// slower REST path.
import { formatIssueRef, type IssueRef } from '../types.ts';

export interface NodeIds {
  get(ref: IssueRef): string | undefined;
  set(ref: IssueRef, id: string): void;
}

export const nodeIds = (max = 5_000): NodeIds => {
  const ids = new Map<string, string>();
  const key = (ref: IssueRef) => formatIssueRef(ref).toLowerCase();
  return {
    get: (ref) => ids.get(key(ref)),
    set(ref, id) {
      const k = key(ref);
      ids.delete(k);
      ids.set(k, id);
      if (ids.size > max) ids.delete(ids.keys().next().value as string);
    },
  };
};
