// swb's schemas are zod 4 schemas (config, themes, agent profiles, the protocol's params); this is
// their one edge to swb's errors: a parse gives the typed value or a SchemaError naming the path
// inside the document and what was expected, worded by schema-wording.ts. Strict objects
// (`z.strictObject`) throughout, so a typo never passes silently. Never on the `swb send` path: the
// CLI client does not load zod (test/unit/architecture.test.ts).
import * as z from 'zod';
import { lazySchema } from '../protocol/lazy-schema.js';
import { issueMessage, reportedIssue, reportedIssues } from './schema-wording.js';

export class SchemaError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
    /** Every problem found (a file's, parsed once); the first is this error's own. */
    readonly all: ReadonlyArray<{ path: string; problem: string }> = [{ path, problem }],
  ) {
    super(`${path || '(root)'}: ${problem}`);
    this.name = 'SchemaError';
  }
}

export type Checked<T> = { ok: true; value: T } | { ok: false; error: SchemaError };

// Two ways to parse, measured in zod 4.6: a parse given any context of its own runs about ten
// times slower (2.7 µs against 0.26 µs for mail.list's params), and zod's JIT compiles a parser per
// object shape (new Function) on first use, which only pays on a hot path.

// swb's error map, for the second parse of a refused request only: refusals are rare, they pay twice.
const IN_SWB_WORDS = { error: issueMessage } as const;

/** Parses a request's params (the hub, per request): the JIT's compiled parser, no context. */
export function check<S extends z.ZodType>(schema: S, value: unknown): Checked<z.output<S>> {
  const first = schema.safeParse(value);
  if (first.success) return { ok: true, value: first.data };
  const worded = schema.safeParse(value, IN_SWB_WORDS);
  return refused(worded.success ? [] : worded.error.issues);
}

// A file is parsed once: no parser compiled for each of its dozens of shapes, swb's words at once.
const ONCE_IN_SWB_WORDS = { jitless: true, error: issueMessage } as const;

/** Parses a file read once (a config, theme or agent profile). */
export function checkFile<S extends z.ZodType>(schema: S, value: unknown): Checked<z.output<S>> {
  const result = schema.safeParse(value, ONCE_IN_SWB_WORDS);
  if (result.success) return { ok: true, value: result.data };
  const first = reportedIssue(result.error.issues);
  const all = reportedIssues(result.error.issues);
  return { ok: false, error: new SchemaError(first.path, first.problem, [first, ...all.filter((p) => p.path !== first.path)]) };
}

function refused(issues: readonly z.core.$ZodIssue[]): { ok: false; error: SchemaError } {
  const { path, problem } = reportedIssue(issues);
  return { ok: false, error: new SchemaError(path, problem) };
}

/** checkFile, throwing the SchemaError. */
export function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = checkFile(schema, value);
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
export const editorSchemaField = lazySchema(() => z.optional(z.string().max(4096).meta({ description: 'The JSON Schema of this file, for editors; swb ignores it.' })));
