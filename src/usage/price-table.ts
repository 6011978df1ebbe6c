// Model prices as data: one JSON file per provider under src/usage/prices/ (shipped with the package
// beside the agent profiles), each with the date its figures were taken and where from, per model the
// list price per million tokens (input, cache read, cache write, output, and a long-prompt tier where
// the provider has one) and the context window. The config may override a model's figures or add
// models (`mergePrices`; the config's `usage.prices`, its schema in src/config/usage-config.ts). A model the table does not know
// gets no price: its tokens are shown and its cost is null, never a guess from a similar name. Only
// a dated snapshot id of a known model (claude-sonnet-4-5-20250929, gpt-4o-2024-08-06) is priced as it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { lazySchema } from '../protocol/lazy-schema.js';
import { packageRoot } from '../util/package-root.js';
import { ownRecord, parse } from '../util/schema.js';
import type { TokenCounts } from './token-counts.js';
import { MODELS, type PriceOverrides, TierSchema, tokensCount } from '../config/usage-config.js';

// The config's `usage.prices` shape lives with the section's other shapes (usage-config.ts).
export { PriceOverridesSchema, type PriceOverrides } from '../config/usage-config.js';

// Built at their first use (protocol/lazy-schema.ts says why).
const ModelPriceSchema = lazySchema(() =>
  z.strictObject({
    ...TierSchema().shape,
    /** The model's context window in tokens (null: not known, no fill shown). */
    contextWindow: tokensCount().nullable(),
    /** Prices for a response whose prompt (cached included) exceeds aboveTokens. */
    longPrompt: z.optional(z.strictObject({ aboveTokens: tokensCount(), ...TierSchema().shape })),
    /** Other ids the provider serves the model under. */
    aliases: z.optional(z.array(z.string().min(1).max(200)).max(20)),
  }),
);

export const PriceFileSchema = lazySchema(() =>
  z.strictObject({
    $comment: z.optional(z.string()),
    provider: z.string().min(1).max(64),
    /** The date the figures were taken (YYYY-MM-DD). */
    asOf: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    source: z.url(),
    currency: z.literal('USD'),
    models: ownRecord(z.string().min(1).max(200), ModelPriceSchema(), MODELS),
  }),
);

export type ModelPrice = z.output<ReturnType<typeof ModelPriceSchema>>;
export type PriceFile = z.output<ReturnType<typeof PriceFileSchema>>;

export interface PricedModel {
  id: string;
  provider: string;
  price: ModelPrice;
  /** Where the figures come from: the provider's page and date, or "config". */
  source: string;
  asOf: string | null;
}

export class PriceTable {
  private readonly byId = new Map<string, PricedModel>();

  constructor(entries: Iterable<PricedModel>) {
    for (const e of entries) {
      this.byId.set(e.id, e);
      for (const alias of e.price.aliases ?? []) if (!this.byId.has(alias)) this.byId.set(alias, e);
    }
  }

  /** The prices of `model`, or null when the table does not know it. */
  lookup(model: string | null): PricedModel | null {
    if (model === null) return null;
    const exact = this.byId.get(model);
    if (exact) return exact;
    const base = snapshotBase(model);
    return base === null ? null : (this.byId.get(base) ?? null);
  }

  get models(): PricedModel[] {
    return [...new Set(this.byId.values())];
  }
}

/** What the usage code asks of a price table. */
export type Prices = Pick<PriceTable, 'lookup'>;

/**
 * Prices made at their first lookup: making them parses the price files through their schema, which
 * a server's start does not need (its first frame looks no price up; an agent's first reported usage
 * does): some 3-5 ms of every cold start before its first frame (issue #33). Made once.
 */
export function pricesAtFirstUse(make: () => PriceTable): Prices {
  let table: PriceTable | undefined;
  return { lookup: (model) => (table ??= make()).lookup(model) };
}

/** A dated snapshot's model id ("-20250929", "-2024-08-06", "@20251101"), or Claude Code's "[1m]" form; null when `model` is neither. */
function snapshotBase(model: string): string | null {
  const m = /^(.+?)(?:\[1m\]|[-@]\d{8}|-\d{4}-\d{2}-\d{2})$/i.exec(model);
  return m ? m[1]! : null;
}

/** The price files in `dir` (default: the package's src/usage/prices/), checked by their schema. */
export function loadPriceFiles(dir = join(packageRoot(), 'src', 'usage', 'prices')): PriceFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      try {
        return parse(PriceFileSchema(), JSON.parse(readFileSync(join(dir, f), 'utf8')));
      } catch (err) {
        throw new Error(`${join(dir, f)}: ${(err as Error).message}`);
      }
    });
}

/** The table from the price files with the config's overrides applied. */
export function mergePrices(files: readonly PriceFile[], overrides: PriceOverrides = {}): PriceTable {
  const entries = new Map<string, PricedModel>();
  for (const file of files) {
    for (const [id, price] of Object.entries(file.models)) entries.set(id, { id, provider: file.provider, price, source: file.source, asOf: file.asOf });
  }
  const table = new PriceTable(entries.values());
  for (const [id, o] of Object.entries(overrides)) {
    const known = table.lookup(id);
    const base: Partial<ModelPrice> = known?.price ?? {};
    const input = o.input ?? base.input;
    const output = o.output ?? base.output;
    if (input === undefined || output === undefined) throw new Error(`prices.${id}: a model the price table does not know needs at least "input" and "output"`);
    const longPrompt = o.longPrompt === null ? undefined : (o.longPrompt ?? base.longPrompt);
    const price: ModelPrice = {
      input,
      output,
      cacheRead: o.cacheRead ?? base.cacheRead ?? input,
      cacheWrite: o.cacheWrite ?? base.cacheWrite ?? input,
      contextWindow: o.contextWindow !== undefined ? o.contextWindow : (base.contextWindow ?? null),
      ...(longPrompt ? { longPrompt } : {}),
    };
    const key = known?.id ?? id;
    entries.set(key, { id: key, provider: known?.provider ?? 'config', price: { ...price, ...(known?.price.aliases ? { aliases: known.price.aliases } : {}) }, source: 'config', asOf: null });
  }
  return new PriceTable(entries.values());
}

/** Whether a response with this prompt size is billed at the model's long-prompt prices. */
export function isLongPrompt(price: ModelPrice, promptTokens: number): boolean {
  return price.longPrompt !== undefined && promptTokens > price.longPrompt.aboveTokens;
}

/** List price in dollars of `tokens` billed at the model's base prices plus `longTokens` at its long-prompt prices. */
export function costOf(price: ModelPrice, tokens: Readonly<TokenCounts>, longTokens?: Readonly<TokenCounts>): number {
  let cost = tierCost(price, tokens);
  if (longTokens) cost += tierCost(price.longPrompt ?? price, longTokens);
  return cost;
}

function tierCost(p: z.output<ReturnType<typeof TierSchema>>, t: Readonly<TokenCounts>): number {
  return (t.input * p.input + t.cacheRead * p.cacheRead + t.cacheWrite * p.cacheWrite + t.output * p.output) / 1_000_000;
}
