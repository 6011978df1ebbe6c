import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from '../../../src/config/json-syntax-error.js';

describe('findJsonSyntaxError', () => {
  it.each([
    ['{"a": 1,}', 1, 8, /trailing comma/],
    ['{\n  "rows": [\n    {"command": "x"},\n  ]\n}', 3, 21, /trailing comma/],
    ['{"a" 1}', 1, 6, /expected ":"/],
    ['{a: 1}', 1, 2, /double-quoted property name/],
    ["{'a': 1}", 1, 2, /property names must use double quotes/],
    ['{"a": \'x\'}', 1, 7, /strings must use double quotes/],
    ['// comment\n{}', 1, 1, /comments are not allowed/],
    ['{"a": tru}', 1, 7, /unknown word "tru"/],
    ['{"a": undefined}', 1, 7, /unknown word "undefined"/],
    ['{"a": 01}', 1, 7, /malformed number/],
    ['{"a": 1.}', 1, 7, /malformed number/],
    ['{"a": "x\ny"}', 1, 9, /raw control character/],
    ['{"a": "\\q"}', 1, 8, /bad escape/],
    ['{"a": "\\u12"}', 1, 8, /bad \\u escape/],
    ['{"a": "unterminated', 1, 7, /unterminated string/],
    ['{"a": 1', 1, 8, /missing "}"/],
    ['[1, 2', 1, 6, /missing "]"/],
    ['{"a": 1} x', 1, 10, /after the end/],
    ['', 1, 1, /empty/],
    ['   \n ', 2, 2, /empty/],
    ['{"a": [1 2]}', 1, 10, /expected "," or "]"/],
    ['{"a": 1 "b": 2}', 1, 9, /expected "," or "}"/],
  ])('%j → %i:%i', (text, line, column, problem) => {
    expect(() => JSON.parse(text)).toThrow();
    const found = findJsonSyntaxError(text);
    expect(found).toMatchObject({ line, column });
    expect(found?.problem).toMatch(problem);
  });

  it('accepts valid JSON', () => {
    for (const text of ['{}', '[]', '{"a":[1,-2.5e+3,"\\u00e9\\n",true,false,null,{"b":{}}]}', ' 0 ', '"x"']) {
      expect(findJsonSyntaxError(text)).toBeNull();
    }
  });

  it('stops at hostile nesting instead of overflowing the stack', () => {
    expect(findJsonSyntaxError('['.repeat(100_000))?.problem).toMatch(/nested more than/);
  });
});
