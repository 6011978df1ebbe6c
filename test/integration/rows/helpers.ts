// Shared helpers for row integration tests: fixture paths, the next value of an event (with a
// deadline), and row options pointing at a throwaway socket path. Conditions are polled with
// test/helpers/wait-until.ts.
import { join } from 'node:path';
import type { Event } from '../../../src/util/event.js';
import type { RowOptions } from '../../../src/rows/row.js';

export const PROGRAMS = join(import.meta.dirname, '../../fixtures/programs');

export function program(name: string): string {
  return join(PROGRAMS, name);
}

/** Runs a node fixture program with the same node binary as the test. */
export function nodeProgram(name: string, ...args: string[]): { file: string; args: string[] } {
  return { file: process.execPath, args: [program(name), ...args] };
}

/** The next value of an event, or a failure after the deadline. */
export function nextEvent<T>(event: Event<T>, what: string, timeoutMs = 10_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const sub = event((value) => {
      clearTimeout(timer);
      sub.dispose();
      resolve(value);
    });
  });
}

let tokens = 0;

export function rowOptions(overrides: Partial<RowOptions> = {}): Omit<RowOptions, 'spec'> {
  return {
    cols: 80,
    rows: 24,
    socketPath: '/tmp/swb-test-no-hub.sock',
    mintToken: (name) => `token-${name}-${++tokens}`,
    killGraceMs: 500,
    ...overrides,
  };
}
