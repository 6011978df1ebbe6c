// swb's schemas are zod 4 schemas (config, themes, agent profiles, the protocol's params); this is
// their one edge to swb's errors: a parse gives the typed value or a SchemaError naming the path
// inside the document and what was expected, worded by schema-wording.ts. Strict objects
// (`z.strictObject`) throughout, so a typo never passes silently. Never on the `swb send` path: the
// CLI client does not load zod (test/unit/architecture.test.ts).
import * as z from 'zod';
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
