// The id of a request found in the first bytes of its line (src/mcp/id-from-head.ts): only a
// top-level "id", only when whole within the head; otherwise null, as JSON-RPC answers unknown ids.
import { describe, expect, it } from 'vitest';
import { idFromHead } from '../../../src/mcp/id-from-head.js';

describe('idFromHead', () => {
  it('reads a number or a string id that comes before the params', () => {
    expect(idFromHead('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"text":"xxxx')).toBe(7);
    expect(idFromHead(' { "id" : "call-\\"9\\"" , "method":"tools/call"')).toBe('call-"9"');
    expect(idFromHead('{"method":"tools/call","id":-3}')).toBe(-3);
  });

  it('never takes an "id" inside params or inside a string', () => {
    expect(idFromHead('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"status","arguments":{"id":5,"text":"xxx')).toBeNull();
    expect(idFromHead('{"method":"x","params":["\\"id\\":4",{"id":4}],"a":"b')).toBeNull();
    expect(idFromHead('{"text":"\\"id\\":4, more')).toBeNull();
  });

  it('gives null for an id cut off by the end of the head, or not an id at all', () => {
    expect(idFromHead('{"jsonrpc":"2.0","id":12')).toBeNull();
    expect(idFromHead('{"jsonrpc":"2.0","id":"abc')).toBeNull();
    expect(idFromHead('{"id":{"x":1},"method":"m"}')).toBeNull();
    expect(idFromHead('{"id":true,"method":"m"}')).toBeNull();
    expect(idFromHead(`{"id":"${'a'.repeat(129)}","method":"m"}`)).toBeNull();
    expect(idFromHead('[{"id":1}]')).toBeNull();
    expect(idFromHead('garbage')).toBeNull();
  });
});
