// The config's `usage` section (issue #38): price overrides (a model's figures replaced, or a model the
// price files do not know added) and budgets. Only shapes here, with the config's other sections; the
// price table (src/usage/price-table.ts) and the budget rule (src/usage/usage-budget.ts) read them.
// Each schema is built at its first use (protocol/lazy-schema.ts says why).
import * as z from 'zod';
import { lazySchema } from '../protocol/lazy-schema.js';
import { HANDLE_PATTERN } from '../protocol/handle.js';
import { ownRecord } from '../util/schema.js';

/** Dollars per million tokens (the price files use it too). */
export const perMillion = lazySchema(() => z.number().min(0).max(100_000));
export const tokensCount = lazySchema(() => z.number().int().positive());
/** One tier of a model's prices: input, cache read, cache write, output. */
export const TierSchema = lazySchema(() => z.strictObject({ input: perMillion(), cacheRead: perMillion(), cacheWrite: perMillion(), output: perMillion() }));
/** Model ids as record keys. */
export const MODELS = { maxKeys: 1000, keyProblem: 'is not a model id' };

/**
 * The config's `prices`: per model id, figures that replace the table's (a known model) or a new
 * model (input and output at least; cache prices default to the input price, the window to unknown).
 */
export const PriceOverridesSchema = lazySchema(() =>
  ownRecord(
    z.string().min(1).max(200),
    z.strictObject({
      input: z.optional(perMillion()),
      cacheRead: z.optional(perMillion()),
      cacheWrite: z.optional(perMillion()),
      output: z.optional(perMillion()),
      contextWindow: z.optional(tokensCount().nullable()),
      longPrompt: z.optional(z.strictObject({ aboveTokens: tokensCount(), ...TierSchema().shape }).nullable()),
    }),
    MODELS,
  ),
);

export type PriceOverrides = z.output<ReturnType<typeof PriceOverridesSchema>>;

export const BUDGET_ACTIONS = ['notify', 'stopWakes', 'both'] as const;
export type BudgetAction = (typeof BUDGET_ACTIONS)[number];
/** The fraction of a budget that warns when the budget names none. */
export const DEFAULT_WARN_AT = 0.8;

export const BudgetSchema = lazySchema(() =>
  z
    .strictObject({
      tokens: z.optional(z.int().positive().max(1e15).describe('Tokens (input, cache reads and writes, output) the scope may use.')),
      dollars: z.optional(z.number().positive().max(1e9).describe('Dollars at list price the scope may spend (models without a price count nothing).')),
      per: z.optional(z.enum(['day', 'total']).describe('"day" (UTC) or "total" (all history; default).')),
      warnAt: z.optional(z.number().gt(0).lt(1).describe(`Fraction of the limit that warns (default ${DEFAULT_WARN_AT}).`)),
      action: z.optional(z.enum(BUDGET_ACTIONS).describe('At the limit: "notify" (default: a dashboard note and an audit entry), "stopWakes" (no more automatic wakes for the row), or "both".')),
    })
    .refine((b) => b.tokens !== undefined || b.dollars !== undefined, { error: 'give "tokens", "dollars" or both' }),
);
export type Budget = z.output<ReturnType<typeof BudgetSchema>>;

export const BudgetsSchema = lazySchema(() =>
  z
    .strictObject({
      rows: z.optional(
        ownRecord(
          z.string().refine((k) => k === '*' || HANDLE_PATTERN.test(k), { error: 'a row name, or "*" for every row without its own' }),
          BudgetSchema(),
          { maxKeys: 256, keyProblem: 'is not a row name' },
        ).describe('Per row (by name; "*": every row without its own).'),
      ),
      workspace: z.optional(BudgetSchema().describe('All rows together; "stopWakes" stops automatic wakes for every row.')),
    })
    .describe('Limits on what rows spend (docs/CONFIG.md, "Usage and budgets").'),
);
export type Budgets = z.output<ReturnType<typeof BudgetsSchema>>;


export const UsageConfigSchema = lazySchema(() =>
  z
    .strictObject({
      prices: z.optional(PriceOverridesSchema().describe('Per model id, prices per million tokens that replace the shipped ones (src/usage/prices/), or a model they do not know (input and output at least).')),
      budgets: z.optional(BudgetsSchema()),
    })
    .describe('Usage, cost and budgets (docs/CONFIG.md, "Usage and budgets").'),
);
export type UsageConfig = z.output<ReturnType<typeof UsageConfigSchema>>;
