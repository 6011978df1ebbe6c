// A very small schema combinator set: parse unknown input into typed values with path-named errors.
// Hand-rolled rather than a dependency so the CLI (`swb send`) starts in a few milliseconds.
// Moving to zod 4 (issue #15): `check` and `parse` take a zod schema into the same SchemaError,
// worded by schema-wording.ts; the protocol's params, the config and themes are there already.
import { z } from 'zod';
import { issueMessage, reportedIssue } from './schema-wording.js';

export class SchemaError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path || '(root)'}: ${problem}`);
    this.name = 'SchemaError';
  }
}

export type Checked<T> = { ok: true; value: T } | { ok: false; error: SchemaError };

// swb's error map, for the second parse of a refused value only: a parse given any context of its
// own runs about ten times slower in zod 4.6 (measured: 2.7 µs against 0.26 µs for mail.list's
// params), and the hub parses every request's params. Refusals are rare; they pay twice.
const IN_SWB_WORDS = { error: issueMessage } as const;

/** Parses a zod schema without throwing (the hub does this per request). */
export function check<S extends z.ZodType>(schema: S, value: unknown): Checked<z.output<S>> {
  const first = schema.safeParse(value);
  if (first.success) return { ok: true, value: first.data };
  const worded = schema.safeParse(value, IN_SWB_WORDS);
  const { path, problem } = reportedIssue(worded.success ? [] : worded.error.issues);
  return { ok: false, error: new SchemaError(path, problem) };
}

/** Parses a zod schema or throws SchemaError. */
export function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = check(schema, value);
  if (!result.ok) throw result.error;
  return result.value;
}

/**
 * A record whose own keys are all checked. Zod's record skips a "__proto__" key without a word (so
 * the assignment cannot replace the result's prototype); a file that names one hears `keyProblem`
 * instead. The key count is checked before any value is parsed.
 */
export function ownRecord<K extends z.ZodType<string>, V extends z.ZodType>(key: K, value: V, opts: { maxKeys: number; keyProblem: string }) {
  return z.preprocess((input, ctx) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
    if (Object.keys(input).length > opts.maxKeys) ctx.addIssue({ code: 'custom', input, message: `must have at most ${opts.maxKeys} keys` });
    else if (Object.hasOwn(input, '__proto__')) ctx.addIssue({ code: 'custom', input, path: ['__proto__'], message: opts.keyProblem });
    return input;
  }, z.record(key, value).meta({ maxProperties: opts.maxKeys }));
}

/** `"$schema"` in a config, theme or profile file: where an editor finds the file's JSON Schema. swb ignores it. */
export const editorSchemaField = z.optional(z.string().max(4096).meta({ description: 'The JSON Schema of this file, for editors; swb ignores it.' }));

export type Schema<T> = (value: unknown, path: string) => T;
export type Infer<S> = S extends Schema<infer T> ? T : never;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}

export const str =
  (opts: { min?: number; max?: number; pattern?: RegExp; patternHint?: string } = {}): Schema<string> =>
  (v, p) => {
    if (typeof v !== 'string') throw new SchemaError(p, `expected a string, got ${describe(v)}`);
    if (opts.min !== undefined && v.length < opts.min) throw new SchemaError(p, `must be at least ${opts.min} characters`);
    if (opts.max !== undefined && v.length > opts.max) throw new SchemaError(p, `must be at most ${opts.max} characters`);
    if (opts.pattern && !opts.pattern.test(v))
      throw new SchemaError(p, opts.patternHint ?? `must match ${opts.pattern.source}`);
    return v;
  };

export const int =
  (opts: { min?: number; max?: number } = {}): Schema<number> =>
  (v, p) => {
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new SchemaError(p, `expected an integer, got ${describe(v)}`);
    if (opts.min !== undefined && v < opts.min) throw new SchemaError(p, `must be >= ${opts.min}`);
    if (opts.max !== undefined && v > opts.max) throw new SchemaError(p, `must be <= ${opts.max}`);
    return v;
  };

export const num =
  (opts: { min?: number; max?: number } = {}): Schema<number> =>
  (v, p) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new SchemaError(p, `expected a number, got ${describe(v)}`);
    if (opts.min !== undefined && v < opts.min) throw new SchemaError(p, `must be >= ${opts.min}`);
    if (opts.max !== undefined && v > opts.max) throw new SchemaError(p, `must be <= ${opts.max}`);
    return v;
  };

export const bool: Schema<boolean> = (v, p) => {
  if (typeof v !== 'boolean') throw new SchemaError(p, `expected true or false, got ${describe(v)}`);
  return v;
};

export const literal =
  <const L extends readonly (string | number | boolean)[]>(...options: L): Schema<L[number]> =>
  (v, p) => {
    if (!options.includes(v as L[number]))
      throw new SchemaError(p, `must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}`);
    return v as L[number];
  };

export const array =
  <T>(item: Schema<T>, opts: { min?: number; max?: number } = {}): Schema<T[]> =>
  (v, p) => {
    if (!Array.isArray(v)) throw new SchemaError(p, `expected an array, got ${describe(v)}`);
    if (opts.min !== undefined && v.length < opts.min) throw new SchemaError(p, `must have at least ${opts.min} items`);
    if (opts.max !== undefined && v.length > opts.max) throw new SchemaError(p, `must have at most ${opts.max} items`);
    return v.map((x, i) => item(x, `${p}[${i}]`));
  };

export const record =
  <T>(value: Schema<T>, opts: { maxKeys?: number } = {}): Schema<Record<string, T>> =>
  (v, p) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new SchemaError(p, `expected an object, got ${describe(v)}`);
    const keys = Object.keys(v);
    if (opts.maxKeys !== undefined && keys.length > opts.maxKeys) throw new SchemaError(p, `must have at most ${opts.maxKeys} keys`);
    const out: Record<string, T> = {};
    for (const k of keys) out[k] = value((v as Record<string, unknown>)[k], p ? `${p}.${k}` : k);
    return out;
  };

export const optional =
  <T>(inner: Schema<T>): Schema<T | undefined> & { optional: true } => {
    const s = ((v: unknown, p: string) => (v === undefined ? undefined : inner(v, p))) as Schema<T | undefined> & {
      optional: true;
    };
    s.optional = true;
    return s;
  };

export const nullable =
  <T>(inner: Schema<T>): Schema<T | null> =>
  (v, p) =>
    v === null ? null : inner(v, p);

type Shape = Record<string, Schema<unknown>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends { optional: true } ? K : never }[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
export type ObjectOf<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> };

/** A strict object: unknown keys are rejected (typos in config files should not pass silently). */
export const object =
  <S extends Shape>(shape: S, opts: { allowUnknown?: boolean } = {}): Schema<ObjectOf<S>> =>
  (v, p) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new SchemaError(p, `expected an object, got ${describe(v)}`);
    const input = v as Record<string, unknown>;
    if (!opts.allowUnknown) {
      for (const k of Object.keys(input)) {
        // Own keys only: `constructor` or `__proto__` in the input must not match Object.prototype.
        if (!Object.hasOwn(shape, k)) throw new SchemaError(p ? `${p}.${k}` : k, `unknown field (expected one of: ${Object.keys(shape).join(', ')})`);
      }
    }
    const out: Record<string, unknown> = {};
    for (const [k, schema] of Object.entries(shape)) {
      const value = schema(input[k], p ? `${p}.${k}` : k);
      if (value !== undefined) out[k] = value;
    }
    return out as ObjectOf<S>;
  };

export const union =
  <T>(...options: Schema<T>[]): Schema<T> =>
  (v, p) => {
    const problems: string[] = [];
    for (const o of options) {
      try {
        return o(v, p);
      } catch (err) {
        if (err instanceof SchemaError) problems.push(err.problem);
        else throw err;
      }
    }
    throw new SchemaError(p, `matched none of the allowed forms (${problems.join('; ')})`);
  };
