// Zod's issues in swb's words. A refused value is parsed again with `issueMessage` as its error map
// (util/schema.ts), so a problem reads as swb has always written it ("must be >= 0", "expected true
// or false, got string "yes"", "unknown field (expected one of: ...)"), never in zod's default
// English; a schema that knows better (a pattern's hint, a refinement) gives its own message and
// this map is not asked. `reportedIssue` then picks the one problem to report.
import type * as z from 'zod';

type RawIssue = z.core.$ZodRawIssue;

/** What a value is, for "got ...": short, and never the whole of a hostile string. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'an array',
};

/** The fields an object schema declares, for "unknown field (expected one of: ...)". */
function declaredFields(issue: RawIssue): string[] {
  const def = (issue.schema ?? issue.inst)?._zod.def as { shape?: Record<string, unknown> } | undefined;
  return def?.shape ? Object.keys(def.shape) : [];
}

/** z.int() says "expected number" about a string; swb says what it wants, an integer. */
function isInteger(issue: RawIssue): boolean {
  const def = (issue.schema ?? issue.inst)?._zod.def as { format?: string } | undefined;
  return def?.format === 'safeint' || def?.format === 'int32' || def?.format === 'uint32';
}

function bound(origin: string, relation: '>=' | '<=' | '>' | '<', limit: number | bigint): string {
  const least = relation === '>=' || relation === '>';
  if (origin === 'string') return `must be at ${least ? 'least' : 'most'} ${limit} characters`;
  if (origin === 'array' || origin === 'set') return `must have at ${least ? 'least' : 'most'} ${limit} items`;
  return `must be ${relation} ${limit}`;
}

/** The kind of value an option of a union wanted, when that is all it had to say. */
function kindWanted(option: readonly z.core.$ZodIssue[]): string | undefined {
  const only = option.length === 1 ? option[0] : undefined;
  return only?.code === 'invalid_type' && only.path.length === 0 ? only.expected : undefined;
}

function unionMessage(issue: Extract<RawIssue, { code: 'invalid_union' }>): string {
  // A discriminated union (a region's "kind") names the values it knows.
  if (issue.discriminator !== undefined && Array.isArray(issue.options)) return `must be one of ${issue.options.map((v) => JSON.stringify(v)).join(', ')}`;
  // Every form wanted another kind of value: name the kinds ("expected true or false or an object").
  const kinds = issue.errors.map(kindWanted);
  if (kinds.length > 0 && kinds.every((k) => k !== undefined)) {
    return `expected ${[...new Set(kinds.map((k) => EXPECTED[k!] ?? k))].join(' or ')}, got ${describeValue(issue.input)}`;
  }
  return `matched none of the allowed forms (${issue.errors.map((e) => e[0]?.message ?? 'no match').join('; ')})`;
}

/** The error map: one issue's problem in swb's words (the path is added by the caller). */
export function issueMessage(issue: RawIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[isInteger(issue) ? 'int' : issue.expected] ?? issue.expected;
      return issue.input === undefined ? `is missing (expected ${expected})` : `expected ${expected}, got ${describeValue(issue.input)}`;
    }
    case 'too_small':
      return bound(issue.origin, issue.inclusive === false ? '>' : '>=', issue.minimum);
    case 'too_big':
      return bound(issue.origin, issue.inclusive === false ? '<' : '<=', issue.maximum);
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${JSON.stringify(issue.values[0])}` : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return issue.pattern !== undefined ? `must match ${issue.pattern}` : `must be ${issue.format}`;
    case 'unrecognized_keys': {
      const fields = declaredFields(issue);
      return fields.length > 0 ? `unknown field (expected one of: ${fields.join(', ')})` : 'unknown field (there are none)';
    }
    case 'invalid_union':
      return unionMessage(issue);
    case 'invalid_key':
      return issue.issues[0]?.message ?? 'not a valid key';
    default:
      return 'is not valid';
  }
}

/**
 * The issue to report, with its path. Zod lists an object's unknown keys after its fields' problems;
 * swb names the unknown key first, as a reader would: a misspelled key ("wakeline") explains the
 * missing one ("wakeLine"). An unknown key's path is the key itself (`rows[0].colour`).
 */
export function reportedIssue(issues: readonly z.core.$ZodIssue[]): { path: string; problem: string } {
  const { path, problem } = pick(issues);
  return { path: formatPath(path), problem };
}

/**
 * Every problem, for a file whose author wants to fix them all in one go: one per path (z.int()'s
 * two bounds on one value are one problem), unknown fields first (they explain the missing ones).
 */
export function reportedIssues(issues: readonly z.core.$ZodIssue[]): Array<{ path: string; problem: string }> {
  const ordered = [...issues.filter((i) => i.code === 'unrecognized_keys'), ...issues.filter((i) => i.code !== 'unrecognized_keys')];
  const out: Array<{ path: string; problem: string }> = [];
  const seen = new Set<string>();
  for (const issue of ordered) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [null];
    for (const key of keys) {
      const one = key === null ? pick([tighterBound(issue, issues)]) : { path: [...issue.path, key], problem: issue.message };
      const path = formatPath(one.path);
      if (seen.has(path)) continue;
      seen.add(path);
      out.push({ path, problem: one.problem });
    }
  }
  return out;
}

function pick(issues: readonly z.core.$ZodIssue[]): { path: PropertyKey[]; problem: string } {
  const first = issues[0];
  if (!first) return { path: [], problem: 'is not valid' };
  const above = issues
    .filter((i) => i.code === 'unrecognized_keys' && isPrefix(i.path, first.path))
    .sort((a, b) => a.path.length - b.path.length)[0];
  const issue = tighterBound(above ?? first, issues);
  if (issue.code === 'unrecognized_keys') return { path: [...issue.path, issue.keys[0] ?? ''], problem: issue.message };
  if (issue.code === 'invalid_union') {
    // A value of the right kind for only one of the forms (an object where `true` or an object is
    // allowed): what is wrong inside it says more than "matched none of the allowed forms".
    const near = issue.errors.filter((option) => !option.every((i) => i.code === 'invalid_type' && i.path.length === 0));
    if (near.length === 1 && near[0]!.length > 0) {
      const inner = pick(near[0]!);
      return { path: [...issue.path, ...inner.path], problem: inner.problem };
    }
  }
  return { path: [...issue.path], problem: issue.message };
}

/** z.int() checks the safe-integer range before the schema's own min and max: "must be <= 9" says more than "<= 2^53 - 1". */
function tighterBound(issue: z.core.$ZodIssue, issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  if ((issue.code !== 'too_big' && issue.code !== 'too_small') || issue.origin !== 'int') return issue;
  return issues.find((i) => i.code === issue.code && i !== issue && isPrefix(i.path, issue.path) && i.path.length === issue.path.length) ?? issue;
}

function isPrefix(prefix: readonly PropertyKey[], path: readonly PropertyKey[]): boolean {
  return prefix.length <= path.length && prefix.every((key, i) => key === path[i]);
}

/** `rows[0].env.A`: indices in brackets, keys joined with dots. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
