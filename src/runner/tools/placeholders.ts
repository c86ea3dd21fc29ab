// Placeholders of agent argv templates. Each argv element is substituted on its own: a value can
// never split into extra arguments or reach a shell. The same values go to the worker's env.
import type { AttemptRecord } from '../types.ts';

export interface PlaceholderValues {
  promptFile: string;
  worktree: string;
  branch: string;
  baseBranch: string;
  issue: number;
  /** `owner/name`. */
  repo: string;
  model?: string;
  /** The attempt's agent session (`{session}`): chosen by the runner, or printed by the tool. */
  session?: string;
}

/** An attempt's values, with the prompt file its command reads. */
export const placeholdersOf = (r: AttemptRecord, promptFile: string): PlaceholderValues => ({
  promptFile,
  worktree: r.worktree,
  branch: r.branch,
  baseBranch: r.baseBranch,
  issue: r.issue.number,
  repo: `${r.issue.repo.owner}/${r.issue.repo.name}`,
  model: r.model,
  ...(r.sessionId ? { session: r.sessionId } : {}),
});

const table = (v: PlaceholderValues): Record<string, string> => ({
  prompt_file: v.promptFile,
  worktree: v.worktree,
  branch: v.branch,
  base_branch: v.baseBranch,
  issue: String(v.issue),
  repo: v.repo,
  model: v.model ?? '',
  session: v.session ?? '',
});

/** `{name}` → value in every element; braces that name no placeholder are left as they are. */
export const substitute = (template: readonly string[], v: PlaceholderValues): string[] => {
  const values = table(v);
  return template.map((el) => el.replace(/\{([a-z_]+)\}/g, (m, name: string) => values[name] ?? m));
};

export const placeholderEnv = (v: PlaceholderValues): Record<string, string> => ({
  BLITZ_PROMPT_FILE: v.promptFile,
  BLITZ_WORKTREE: v.worktree,
  BLITZ_BRANCH: v.branch,
  BLITZ_BASE_BRANCH: v.baseBranch,
  BLITZ_ISSUE: String(v.issue),
  BLITZ_REPO: v.repo,
  BLITZ_MODEL: v.model ?? '',
  BLITZ_SESSION: v.session ?? '',
});
