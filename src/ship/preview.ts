// The local ship path (seed 000 §5): start the repo's preview command detached in the integration
// worktree and compute the URL another device on the LAN can open, `http://<lan-ip>:<port>`. Binding
// to 0.0.0.0 is the argv's business (`--host 0.0.0.0`); the URL is never `localhost`.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { type NetworkInterfaceInfo, networkInterfaces } from 'node:os';
import { dirname } from 'node:path';
import { isAppError } from '../errors.ts';
import { isAlive, killGroup, redactText, spawnDetached } from '../runner/exec.ts';
import { insideWorkspace } from '../runner/workspace.ts';
import { tailOf } from './deploy.ts';
import { type PollOptions, waitForPreview } from './health.ts';

export type InterfacesSource = () => NodeJS.Dict<NetworkInterfaceInfo[]>;

/** The first non-internal IPv4 address, skipping link-local (169.254/16); undefined when there is none. */
export const lanAddress = (interfaces: InterfacesSource = networkInterfaces): string | undefined => {
  for (const infos of Object.values(interfaces())) {
    for (const info of infos ?? []) {
      // Node 18.0–18.3 reported family as a number.
      const v4 = info.family === 'IPv4' || (info.family as unknown) === 4;
      if (v4 && !info.internal && !info.address.startsWith('169.254.')) return info.address;
    }
  }
  return undefined;
};

export const previewUrl = (ip: string, port: number): string => `http://${ip}:${port}`;

export interface PreviewOptions {
  /** Repo config `ship.preview`. */
  argv: readonly string[];
  /** Repo config `ship.previewPort`; also given to the process as `PORT` unless env sets it. */
  port: number;
  /** The runner's workspace: the worktree and the log must lie inside it. */
  workspaceRoot: string;
  /** The integration worktree (`blitz/<slug>` checked out). */
  worktree: string;
  logFile: string;
  /** The whole environment of the process (nothing is inherited): include PATH. */
  env: Record<string, string>;
  /** The worker's uid and gid (`runner.user`): the preview runs the repository's code as its worker. */
  uid?: number;
  gid?: number;
  interfaces?: InterfacesSource;
  spawn?: typeof spawnDetached;
}

export type PreviewResult = { ok: true; pid: number; url: string } | { ok: false; error: string };

export const startPreview = (opts: PreviewOptions): PreviewResult => {
  if (opts.argv.length === 0) return { ok: false, error: 'No ship.preview command is configured.' };
  if (!Number.isInteger(opts.port) || opts.port < 1 || opts.port > 65_535) {
    return { ok: false, error: `ship.previewPort must be a port number (1–65535), got ${opts.port}.` };
  }
  const ip = lanAddress(opts.interfaces);
  if (!ip)
    return { ok: false, error: 'This host has no LAN IPv4 address, so no device could open the preview.' };
  try {
    const cwd = insideWorkspace(opts.workspaceRoot, opts.worktree);
    const logFile = insideWorkspace(opts.workspaceRoot, opts.logFile);
    mkdirSync(dirname(logFile), { recursive: true });
    const env = { PORT: String(opts.port), ...opts.env };
    const ids =
      opts.uid !== undefined ? { uid: opts.uid, ...(opts.gid !== undefined ? { gid: opts.gid } : {}) } : {};
    const { pid } = (opts.spawn ?? spawnDetached)(opts.argv, { cwd, env, logFile, ...ids });
    return { ok: true, pid, url: previewUrl(ip, opts.port) };
  } catch (err) {
    if (isAppError(err)) return { ok: false, error: err.message };
    return {
      ok: false,
      error: `Could not start the preview: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
};

export interface ReadyOptions extends PreviewOptions {
  /** How long the preview may take to answer on its port (repo config `ship.healthTimeoutSeconds`). */
  readyTimeoutMs: number;
  poll?: Omit<PollOptions, 'url' | 'timeoutMs'>;
  alive?: (pid: number) => boolean;
  kill?: (pid: number) => void;
}

const logTail = (file: string): string => {
  try {
    return existsSync(file) ? redactText(tailOf(readFileSync(file, 'utf8'), 10)) : '';
  } catch {
    return '';
  }
};

/**
 * Starts the preview and waits until its URL answers: a preview that never listens on its port, or
 * whose process exits first, is a failure (its process group stopped, the log's last lines kept), never
 * "ready".
 */
export const startPreviewWhenReady = async (
  opts: ReadyOptions,
): Promise<PreviewResult & { tail?: string }> => {
  const started = startPreview(opts);
  if (!started.ok) return started;
  const alive = opts.alive ?? isAlive;
  const ready = await waitForPreview({
    ...opts.poll,
    url: started.url,
    timeoutMs: opts.readyTimeoutMs,
    alive: () => alive(started.pid),
  });
  if (ready.ok) return started;
  (opts.kill ?? ((pid: number) => killGroup(pid)))(started.pid);
  const tail = logTail(opts.logFile);
  return {
    ok: false,
    error: `The preview at ${started.url} is not ready: ${ready.error}.`,
    ...(tail ? { tail } : {}),
  };
};
