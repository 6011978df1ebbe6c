// The native hook client's list of events (native/hook-events.h) is HOOK_EVENTS of hook-signal.ts:
// an event missing there is handed to the node hook (correct, only slower), an extra one would be
// reported to a hub that reads it as nothing. So the two are kept the same, in the same order.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOOK_EVENTS } from '../../../src/agents/hook-signal.js';

describe('native/hook-events.h', () => {
  it('lists exactly HOOK_EVENTS, in their order', () => {
    const header = readFileSync(new URL('../../../native/hook-events.h', import.meta.url), 'utf8');
    const list = /HOOK_EVENTS\[\] = \{([^}]*)\}/.exec(header)?.[1];
    expect(list, 'the HOOK_EVENTS array in native/hook-events.h').toBeDefined();
    expect([...list!.matchAll(/"([^"]*)"/g)].map((m) => m[1])).toEqual([...HOOK_EVENTS]);
  });
});
