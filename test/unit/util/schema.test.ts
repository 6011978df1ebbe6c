// The edge between zod and swb's errors (src/util/schema.ts, schema-wording.ts): a failed parse is one
// SchemaError naming the path and what was expected, in swb's words, whatever zod's own text says.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { check, checkFile, ownRecord, parse, SchemaError } from '../../../src/util/schema.js';

/** The problem both parses report (the hub's per-request check, and checkFile for files): they must agree. */
function problemOf(schema: z.ZodType, value: unknown): string {
  const [request, file] = [check(schema, value), checkFile(schema, value)];
  if (request.ok || file.ok) throw new Error(`expected a refusal, got ${JSON.stringify(request.ok ? request.value : file.ok && file.value)}`);
  expect(request.error).toBeInstanceOf(SchemaError);
  expect(file.error.message).toBe(request.error.message);
  return request.error.message;
}

const row = z.strictObject({ name: z.string().min(1), count: z.optional(z.int().min(0).max(9)), on: z.optional(z.boolean()) });

describe('check, checkFile and parse', () => {
  it('give the typed value, with absent optional fields left out', () => {
    expect(check(row, { name: 'a' })).toEqual({ ok: true, value: { name: 'a' } });
    expect(checkFile(row, { name: 'a', on: true })).toEqual({ ok: true, value: { name: 'a', on: true } });
    expect(parse(row, { name: 'a', count: 3 })).toEqual({ name: 'a', count: 3 });
  });

  it('parse throws the SchemaError check returns', () => {
    expect(() => parse(row, [])).toThrow(SchemaError);
    expect(() => parse(row, [])).toThrow('(root): expected an object, got an array');
  });
});

describe("problems in swb's words, with the path", () => {
  it.each([
    [{ name: 5 }, 'name: expected a string, got number 5'],
    [{}, 'name: is missing (expected a string)'],
    [{ name: '' }, 'name: must be at least 1 characters'],
    [{ name: 'a', count: 10 }, 'count: must be <= 9'],
    [{ name: 'a', count: -1 }, 'count: must be >= 0'],
    [{ name: 'a', count: 1.5 }, 'count: expected an integer, got number 1.5'],
    [{ name: 'a', count: 'x' }, 'count: expected an integer, got string "x"'],
    [{ name: 'a', count: 2 ** 60 }, 'count: must be <= 9'],
    [{ name: 'a', on: 'yes' }, 'on: expected true or false, got string "yes"'],
    [null, '(root): expected an object, got null'],
  ])('%j', (value, message) => {
    expect(problemOf(row, value)).toBe(message);
  });

  it('names lists, indices and allowed values as swb always did', () => {
    const list = z.strictObject({ items: z.array(z.strictObject({ kind: z.enum(['a', 'b']) })).max(2) });
    expect(problemOf(list, { items: [{ kind: 'a' }, { kind: 'c' }] })).toBe('items[1].kind: must be one of "a", "b"');
    expect(problemOf(list, { items: [{ kind: 'a' }, { kind: 'a' }, { kind: 'a' }] })).toBe('items: must have at most 2 items');
    expect(problemOf(z.literal(1), 2)).toBe('(root): must be 1');
  });

  it("keeps a schema's own message (a pattern's hint, a refinement)", () => {
    const handle = z.string().regex(/^[a-z]+$/, { error: 'lower-case letters only' });
    expect(problemOf(z.strictObject({ h: handle }), { h: 'A' })).toBe('h: lower-case letters only');
    expect(problemOf(z.string().regex(/^[a-z]+$/), 'A')).toBe('(root): must match /^[a-z]+$/');
  });
});

describe('unknown fields', () => {
  it('are refused with the key as the path and the fields there are', () => {
    expect(problemOf(row, { name: 'a', colour: 'red' })).toBe('colour: unknown field (expected one of: name, count, on)');
    expect(problemOf(z.strictObject({}), { x: 1 })).toBe('x: unknown field (there are none)');
  });

  it('are named before the problems they explain: a misspelled key, not the one it leaves missing', () => {
    expect(problemOf(row, { nmae: 'a' })).toBe('nmae: unknown field (expected one of: name, count, on)');
    const nested = z.strictObject({ rows: z.array(row) });
    expect(problemOf(nested, { rows: [{ name: 5 }], rowz: [] })).toMatch(/^rowz: unknown field/);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])('%s is an unknown field, never a prototype member', (key) => {
    // JSON.parse makes own properties, "__proto__" included (as a file or a socket would give them).
    const value = JSON.parse(`{"name":"a",${JSON.stringify(key)}:1}`) as unknown;
    expect(problemOf(row, value)).toBe(`${key}: unknown field (expected one of: name, count, on)`);
  });
});

describe('unions', () => {
  const worktree = z.union([z.boolean(), z.strictObject({ branch: z.optional(z.string()) })]);

  it('say which kinds of value they take when the value is none of them', () => {
    expect(problemOf(worktree, 'yes')).toBe('(root): expected true or false or an object, got string "yes"');
  });

  it('report the problem inside the one form the value could be', () => {
    expect(problemOf(z.strictObject({ worktree }), { worktree: { branch: 5 } })).toBe('worktree.branch: expected a string, got number 5');
  });
});

describe('ownRecord', () => {
  const env = ownRecord(z.string().regex(/^[A-Z_]+$/, { error: 'not a variable name' }), z.string(), { maxKeys: 2, keyProblem: 'not a variable name' });

  it('checks every key and value', () => {
    expect(check(env, { A: 'x', B: 'y' })).toEqual({ ok: true, value: { A: 'x', B: 'y' } });
    expect(problemOf(env, { 'a-b': 'x' })).toBe('a-b: not a variable name');
    expect(problemOf(env, { A: 1 })).toBe('A: expected a string, got number 1');
  });

  it('refuses a "__proto__" key rather than dropping it (zod skips it silently)', () => {
    expect(problemOf(env, JSON.parse('{"__proto__":"x"}'))).toBe('__proto__: not a variable name');
  });

  it('counts the keys before it parses a value', () => {
    expect(problemOf(env, { A: 1, B: 2, C: 3 })).toBe('(root): must have at most 2 keys');
  });
});
