// The price table the terminal commands (`blitz-bot status`, `stats`) price attempts with when they
// read the database themselves: the operator file's `prices:` (BLITZ_CONFIG or ./blitz.config.yml, as
// `serve` finds it) over the built-in table. With --server the bot's own answer already carries its costs.
import { loadBlitzConfig } from '../config/blitz-config.ts';
import { type PriceTable, priceTableOf } from '../plan/cost.ts';

export const configuredPrices = (env: Record<string, string | undefined> | undefined): PriceTable =>
  priceTableOf((env ? loadBlitzConfig(undefined, env) : loadBlitzConfig()).prices);
