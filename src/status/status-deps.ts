// What the status pages need, and how the composition root builds it from what `serve` already has:
// the env's STATUS_TOKEN, the run store with its ledger, the run-change bus, the logger, and the
// runner workspace (the only place prompt and log files are read from). Also points the /metrics run
// gauges at the same stores.

import type { BudgetTracker } from '../forges/rate-budget.ts';
import type { ForgeWebLinks } from '../forges/web-links.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Redact } from '../observability/redact.ts';
import type { PriceTable } from '../plan/cost.ts';
import type { AttemptLedger } from '../runner/types.ts';
import type { RunStore } from '../store/run-store.ts';
import type { RunnerRegistry } from '../store/runner-tokens.ts';
import type { Store } from '../store/types.ts';
import { createLogReader, type ReadLog } from './log-reader.ts';
import type { RunEvents } from './run-events.ts';
import { runFigures } from './run-figures.ts';

export interface StatusDeps {
  /** STATUS_TOKEN; unset turns every status page off. */
  token?: string;
  runs: RunStore;
  ledger: AttemptLedger;
  /** Deliveries given up on (shown on the runs page). */
  deliveries: Pick<Store, 'listFailedDeliveries'>;
  events: RunEvents;
  logger: Logger;
  /** Reads prompt and stream-log files, confined to the runner's directories. */
  readLog: ReadLog;
  now?: () => Date;
  /** Open SSE streams at most (default 100). */
  maxStreams?: number;
  /** What the forges said of their rate limits, and the pace runs keep on them (forges/rate-budget.ts). */
  budget?: Pick<BudgetTracker, 'all' | 'paceOf'>;
  /** Where the forges show an issue or a PR (forges/web-links.ts); absent, numbers are not links. */
  links?: ForgeWebLinks;
  /** The registered remote runners (shown on the runs page: live, lost, their clock offsets). */
  runners?: Pick<RunnerRegistry, 'listTokens'>;
  /** What prices attempts (plan/cost.ts: the config's `prices:` over the defaults); absent, the defaults. */
  prices?: PriceTable;
}

export const createStatusDeps = (opts: {
  statusToken: string | undefined;
  runs: RunStore & { ledger: AttemptLedger };
  deliveries: Pick<Store, 'listFailedDeliveries'>;
  events: RunEvents;
  logger: Logger;
  metrics: Metrics;
  /** The runner workspace (blitz config `runner.workspace`): attempts keep their logs under it. */
  workspace: string;
  /** Workers write their logs themselves: what they printed is redacted as the pages read it. */
  redact: Redact;
  budget?: Pick<BudgetTracker, 'all' | 'paceOf'>;
  /** Where the forges show an issue or a PR, for the links on the pages and in the API. */
  links?: ForgeWebLinks;
  runners?: Pick<RunnerRegistry, 'listTokens'>;
  prices?: PriceTable;
}): StatusDeps => {
  const read = createLogReader({ roots: [opts.workspace] });
  opts.metrics.setRunFigures(() => runFigures({ runs: opts.runs, ledger: opts.runs.ledger }));
  return {
    ...(opts.statusToken ? { token: opts.statusToken } : {}),
    runs: opts.runs,
    ledger: opts.runs.ledger,
    deliveries: opts.deliveries,
    ...(opts.budget ? { budget: opts.budget } : {}),
    ...(opts.links ? { links: opts.links } : {}),
    ...(opts.runners ? { runners: opts.runners } : {}),
    ...(opts.prices ? { prices: opts.prices } : {}),
    events: opts.events,
    logger: opts.logger,
    readLog: async (path) => {
      const log = await read(path);
      return log && { ...log, text: opts.redact(log.text) };
    },
  };
};
