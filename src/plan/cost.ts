// Cost in money: a price per model (per million tokens of input, output, cache read and cache write)
// turned into what an attempt, an issue and a run cost. Everything is integer micro-dollars (µ$):
// a price is µ$ per million tokens, a cost is µ$, rounded once per attempt, and only formatting makes
// dollars of it. A model the table does not price, or a kind of token its entry has no price for, is an
// unknown price, never a guess.

/** µ$ per million tokens; cache prices absent: tokens of that kind make the price unknown. */
export interface Price {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** Model name (as the roster entry or `--model` gives it, or as the tool reports it) → price. */
export type PriceTable = Readonly<Record<string, Price>>;

/** Tokens as the ledger keeps them (runner/types.ts TokenUsage): `cache` is read + written. */
export interface PricedTokens {
  input: number;
  output: number;
  /** Cache tokens read and written together. */
  cache?: number;
  /** The part of `cache` written (absent on records kept before the split: the split is unknown). */
  cacheWrite?: number;
}

/** A sum of costs: the µ$ of what had a price, and how many attempts had none. */
export interface Cost {
  micros: number;
  /** Attempts whose model (or one kind of their tokens) the table does not price. */
  unpriced: number;
}

export const zeroCost: Cost = { micros: 0, unpriced: 0 };

const M = 1_000_000;
const dollars = (d: number): number => Math.round(d * M);
const p = (input: number, output: number, cacheRead?: number, cacheWrite?: number): Price => ({
  input: dollars(input),
  output: dollars(output),
  ...(cacheRead !== undefined ? { cacheRead: dollars(cacheRead) } : {}),
  ...(cacheWrite !== undefined ? { cacheWrite: dollars(cacheWrite) } : {}),
});

// Each price in dollars per million tokens: input, output, cache read ("cache hits"), cache write at the
// 5-minute rate (the ledger does not split 5-minute from 1-hour writes; a 1-hour write costs 1.6× this).
// Checked on 2026-12-07 against the providers' published pages, as cited on each line.
const SONNET_5_5 = p(2, 10, 0.2, 2.5); // platform.claude.com/docs/*/models/sonnet-5-5/overview
const SONNET_5 = p(2, 10, 0.2, 2.5); // platform.claude.com/docs/*/models/sonnet-5/overview
const OPUS_5_5 = p(4, 20, 0.2, 5); // platform.claude.com/docs/*/models/opus-5-5/overview
const OPUS_5 = p(5, 25, 0.5, 6.25); // platform.claude.com/docs/en/models/opus-5/overview
// Fable 5.2: Anthropic's own page was not among what could be read; the $8/$40, $0.20 cache read and
// $10 cache write are the list price as resellers and price trackers quote it (docs.laozhang.ai,
// docs.sim.ai, 2026-11-10). Override it in `prices:` if Anthropic's page says otherwise.
const FABLE_5_2 = p(8, 40, 0.2, 10);
const FABLE_5_1 = p(10, 50, 0.25, 12.5); // platform.claude.com/docs/en/about-claude/pricing
const FABLE_5 = p(10, 50, 1, 12.5); // platform.claude.com/docs/en/about-claude/pricing
// OpenAI charges nothing to write its cache: a cached input token is only read (cache write 0).
const GPT_5 = p(1.25, 10, 0.125, 0); // developers.openai.com/api/docs/models (GPT-5, GPT-5-Codex)

/**
 * Prices of the built-in roster's models (plan/routing.ts defaultEntries: claude `sonnet`, `opus`,
 * `fable`) and of the models the shipped configs name. An alias is priced as the model claude's CLI
 * resolves it to on the Anthropic API: `fable` Fable 5.2 (code.claude.com/docs/en/model-config, read
 * 2026-12-07), `sonnet` Sonnet 5.5 and `opus` Opus 5.5 (since CLI 2.1.284 and 2.1.280, docs.rs
 * claude-codes `ClaudeModel`; the pinned CLI is newer, runner/tools/tested-versions.ts). A model missing here has an unknown price (shown as
 * "unknown price", never $0), as has an attempt whose tool ran its own default model and did not say
 * which. `prices:` in blitz.config.yml overrides or adds entries.
 */
export const defaultPrices: PriceTable = {
  sonnet: SONNET_5_5,
  'claude-sonnet-5-5': SONNET_5_5,
  'claude-sonnet-5': SONNET_5,
  opus: OPUS_5_5,
  'claude-opus-5-5': OPUS_5_5,
  'claude-opus-5': OPUS_5,
  fable: FABLE_5_2,
  'claude-fable-5-2': FABLE_5_2,
  'claude-fable-5-1': FABLE_5_1,
  'claude-fable-5': FABLE_5,
  'gpt-5': GPT_5,
};

/** A price as blitz.config.yml's `prices:` writes it: dollars per million tokens. */
export interface DollarPrice {
  input: number;
  output: number;
  cacheRead?: number | undefined;
  cacheWrite?: number | undefined;
}

/** The defaults with the operator's entries (dollars, rounded to the µ$) over them. */
export const priceTableOf = (overrides: Readonly<Record<string, DollarPrice>> | undefined): PriceTable => {
  const table: Record<string, Price> = { ...defaultPrices };
  for (const [model, d] of Object.entries(overrides ?? {}))
    table[model] = p(d.input, d.output, d.cacheRead, d.cacheWrite);
  return table;
};

/**
 * The price of a model: its own entry, else the name without a provider (`anthropic/sonnet`,
 * `ollama_chat/qwen`), else without a date suffix (`claude-sonnet-5-5-20260601`). Undefined: unknown.
 */
export const priceFor = (table: PriceTable, model: string | undefined): Price | undefined => {
  if (!model) return undefined;
  const own = (name: string): Price | undefined => (Object.hasOwn(table, name) ? table[name] : undefined);
  const bare = model.slice(model.lastIndexOf('/') + 1);
  const undated = bare.replace(/-\d{8}$/, '');
  return own(model) ?? own(bare) ?? own(undated);
};

const big = (n: number): bigint => BigInt(Math.max(0, Math.trunc(n)));

/**
 * What tokens cost at a price, in µ$ rounded half up; undefined when a kind of token present has no
 * price (cache tokens without cache prices, or cache tokens of a record that did not split them).
 */
export const tokensCost = (t: PricedTokens, price: Price): number | undefined => {
  const cache = Math.max(0, t.cache ?? 0);
  if (cache > 0 && t.cacheWrite === undefined) return undefined;
  const written = Math.min(cache, Math.max(0, t.cacheWrite ?? 0));
  const read = cache - written;
  if (read > 0 && price.cacheRead === undefined) return undefined;
  if (written > 0 && price.cacheWrite === undefined) return undefined;
  // Exact: tokens × µ$/Mtok is µ$·10⁻⁶; the sum is rounded once.
  const exact =
    big(t.input) * BigInt(price.input) +
    big(t.output) * BigInt(price.output) +
    big(read) * BigInt(price.cacheRead ?? 0) +
    big(written) * BigInt(price.cacheWrite ?? 0);
  return Number((exact + BigInt(M / 2)) / BigInt(M));
};

/** One attempt's cost: its µ$, or one unpriced attempt. Tokens all zero cost nothing whatever the model. */
export const attemptCost = (
  table: PriceTable,
  a: { model?: string | undefined; tokens: PricedTokens },
): Cost => {
  const none = a.tokens.input <= 0 && a.tokens.output <= 0 && (a.tokens.cache ?? 0) <= 0;
  if (none) return zeroCost;
  const price = priceFor(table, a.model);
  const micros = price ? tokensCost(a.tokens, price) : undefined;
  return micros === undefined ? { micros: 0, unpriced: 1 } : { micros, unpriced: 0 };
};

export const addCost = (a: Cost, b: Cost): Cost => ({
  micros: a.micros + b.micros,
  unpriced: a.unpriced + b.unpriced,
});

export const sumCosts = (costs: Iterable<Cost>): Cost => {
  let total = zeroCost;
  for (const c of costs) total = addCost(total, c);
  return total;
};

/** `$0.42`, `$1,204.10`, `<$0.01`: µ$ rounded half up to cents, with integer arithmetic. */
export const formatDollars = (micros: number): string => {
  const m = Math.max(0, Math.trunc(micros));
  if (m > 0 && m < 5_000) return '<$0.01';
  const cents = Math.floor((m + 5_000) / 10_000);
  const whole = Math.floor(cents / 100).toLocaleString('en-US');
  return `$${whole}.${String(cents % 100).padStart(2, '0')}`;
};

/** `$0.42`; `unknown price` when nothing had one; `$0.42 + unknown price` when part had none. */
export const formatCost = (c: Cost): string =>
  c.unpriced === 0
    ? formatDollars(c.micros)
    : c.micros === 0
      ? 'unknown price'
      : `${formatDollars(c.micros)} + unknown price`;

/** Dollars as a config file writes them (`0.42`) → µ$, rounded to the nearest. */
export const microsOfDollars = (d: number): number => dollars(d);
