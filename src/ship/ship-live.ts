// Shipping proven live (seed 000 §5): a deploy counts once its command succeeded and, when
// `ship.healthUrl` is set, that URL answered 2xx before `ship.healthTimeoutSeconds`; a local preview
// counts once something answers on its port. Either way the result is the URL that answered or the
// failure in words, never "ready" on a process that was merely started. The IO is injected for tests.
import { type DeployOptions, type DeployResult, runDeploy } from './deploy.ts';
import { type PollOptions, type PollResult, pollHealth } from './health.ts';
import { type ReadyOptions, startPreviewWhenReady } from './preview.ts';

/** `ship.healthTimeoutSeconds` when unset. */
export const defaultHealthTimeoutSeconds = 300;

/**
 * `url`: an address that answered (the health URL's 2xx, the preview's port); `unchecked`: the deploy's
 * address when nothing polled it (no `ship.healthUrl`), never named as live.
 */
export type LiveResult =
  | { ok: true; url?: string; unchecked?: string }
  | { ok: false; error: string; tail?: string };

export interface DeployLiveOptions {
  deploy: DeployOptions;
  /** `ship.healthUrl`: polled after the deploy; absent = the deploy's exit code is all there is. */
  healthUrl?: string;
  /** `ship.deployUrl`, linked in the notice; the health URL when absent. */
  deployUrl?: string;
  timeoutMs: number;
  poll?: Omit<PollOptions, 'url' | 'timeoutMs'>;
  runDeploy?: (o: DeployOptions) => Promise<DeployResult>;
  pollHealth?: (o: PollOptions) => Promise<PollResult>;
}

/** Runs the deploy, then waits for the health URL; the URL to link, or why it is not live. */
export const deployLive = async (o: DeployLiveOptions): Promise<LiveResult> => {
  const res = await (o.runDeploy ?? runDeploy)(o.deploy);
  if (!res.ok)
    return {
      ok: false,
      error: res.error ?? 'the deploy command failed',
      ...(res.tail ? { tail: res.tail } : {}),
    };
  const link = o.deployUrl ?? o.healthUrl;
  if (!o.healthUrl) return link ? { ok: true, unchecked: link } : { ok: true };
  const health = await (o.pollHealth ?? pollHealth)({ ...o.poll, url: o.healthUrl, timeoutMs: o.timeoutMs });
  if (!health.ok) return { ok: false, error: `the deploy finished but is not healthy: ${health.error}` };
  return { ok: true, url: link ?? o.healthUrl };
};

export interface PreviewLiveOptions {
  preview: ReadyOptions;
  startPreviewWhenReady?: typeof startPreviewWhenReady;
}

/** Starts the preview and waits for it to answer on its port; its LAN URL, or why it is not live. */
export const previewLive = async (o: PreviewLiveOptions): Promise<LiveResult> => {
  const r = await (o.startPreviewWhenReady ?? startPreviewWhenReady)(o.preview);
  if (r.ok) return { ok: true, url: r.url };
  return { ok: false, error: r.error, ...('tail' in r && r.tail ? { tail: r.tail } : {}) };
};
