// Driving a real `swb` dashboard the way an operator does, for the tests that run real agent CLIs as its
// rows (test/real-agents/*-swb.test.ts): attach, type, detach; ask `swb explain` about a row; watch a
// wake stay held.
import { expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReceiptResult, RowExplainResult } from '../../src/protocol/methods.js';
import { runSwb, spawnSwb, type SwbProcess } from './run-swb.js';
import type { TempHome } from './temp-home.js';
import type { TerminalHarness } from './terminal-harness.js';
import { waitUntil } from './wait-until.js';

const ATTACH = '\r';
const DETACH = '\x1c'; // Ctrl-\

/** Keys to type, a condition on the screen to wait for, or a pause (an agent that treats fast Enter as paste). */
export type OperatorStep = string | { waitFor: (screen: string) => boolean; what: string } | { pauseMs: number };

/** As the operator: attach the focused row, go through the steps, detach. */
export async function operate(t: TerminalHarness, steps: readonly OperatorStep[]): Promise<void> {
  t.write(ATTACH);
  await t.waitForNoText(/enter attach/);
  for (const s of steps) {
    if (typeof s === 'string') t.write(s);
    else if ('pauseMs' in s) await new Promise((r) => setTimeout(r, s.pauseMs));
    else await t.waitFor(() => s.waitFor(t.screenText().join('\n')), s.what, { timeoutMs: 20_000 });
  }
  t.write(DETACH);
  await t.waitForText(/enter attach/);
}

/**
 * As the operator on a loaded machine: types `text` into the attached row's agent until its input
 * shows it (keys sent while the agent is still setting up its input are dropped: it is typed again
 * only when none of it reached the screen), then submits with `submit` until `taken` (e.g. the prompt
 * reached the model), pressing again only while the input still shows the text (an Enter the agent
 * took as part of the typing, or dropped).
 */
export async function submitPrompt(
  t: TerminalHarness,
  text: string,
  o: { inputShows: (screen: string) => boolean; submit: readonly OperatorStep[]; taken: () => boolean; what: string },
): Promise<void> {
  const screen = () => t.screenText().join('\n');
  const shown = () => t.waitFor(() => o.inputShows(screen()), `"${text}" in the input`, { timeoutMs: 5000 }).then(() => true, () => false);
  await operate(t, [text]);
  for (let tries = 0; !(await shown()) && tries < 4; tries++) {
    // A loaded agent may show the first typing only after the retype went in too: take one copy back.
    if (screen().includes(text + text)) await operate(t, ['\x7f'.repeat(text.length)]);
    else if (!screen().includes(text)) await operate(t, [text]);
  }
  await operate(t, o.submit);
  for (let tries = 0; !o.taken() && tries < 4; tries++) {
    await waitUntil(o.taken, { timeoutMs: 5000, what: o.what }).catch(() => undefined);
    if (!o.taken() && o.inputShows(screen())) await operate(t, o.submit);
  }
  await waitUntil(o.taken, { timeoutMs: 30_000, what: o.what }).catch((err: Error) => {
    throw new Error(`${err.message}\n${t.describe()}`);
  });
}

/** `swb explain ROW --json`, as the operator. */
export async function explainRow(home: TempHome, row: string): Promise<RowExplainResult> {
  const r = await runSwb(['explain', row, '--json'], { home });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as RowExplainResult;
}

/**
 * Resolves with the explanation once `held` has been true without a break for `holdMs` (the wake is held
 * by the row's state itself, not merely by a screen that has not been still yet).
 */
export async function waitForWakeHeld(
  t: TerminalHarness,
  home: TempHome,
  row: string,
  opts: { holdMs: number; held: (e: RowExplainResult) => boolean; what: string },
): Promise<RowExplainResult> {
  let last: RowExplainResult | undefined;
  let heldSince = 0;
  return waitUntil(
    async () => {
      const e = (last = await explainRow(home, row));
      if (!opts.held(e)) {
        heldSince = 0;
        return false;
      }
      heldSince ||= Date.now();
      return Date.now() - heldSince > opts.holdMs && e;
    },
    { timeoutMs: 20_000, intervalMs: 300, what: opts.what },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; last explain: ${JSON.stringify(last)}\n${t.describe()}`);
  });
}

/**
 * An external sender (`swb ask --as tester`) asks `row` while a question is open in it: the row's
 * header counts the mail, and the wake stays held (by default: state waiting, wake pending) for well
 * past the profile's quiet time. Returns the running `swb ask`, which waits for the reply.
 */
export async function askWhileQuestionOpen(
  t: TerminalHarness,
  home: TempHome,
  row: string,
  opts: { quietMs: number; what: string; held?: (e: RowExplainResult) => boolean },
): Promise<SwbProcess> {
  const ask = spawnSwb(['ask', '--as', 'tester', `@${row}`, 'ping from tester', '--timeout', '170'], { home });
  // The header names the profile only when it differs from the row's name.
  await t.waitForText(new RegExp(`${row} · (?:\\S+ · )?waiting .*✉ 1`));
  const held = await waitForWakeHeld(t, home, row, {
    holdMs: opts.quietMs + 1500,
    held: opts.held ?? ((e) => e.state === 'waiting' && e.wake?.phase === 'pending'),
    what: opts.what,
  });
  expect(held).toMatchObject({ state: 'waiting', wake: { policy: 'auto', phase: 'pending' } });
  return ask;
}

/** What swb typed into rows, from its audit log, as [row, bytes] pairs in order. */
export function typedIntoRows(home: TempHome): Array<[string, string]> {
  return readFileSync(join(home.paths.runDir, 'audit.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { row: string; bytes: string })
    .map((a) => [a.row, a.bytes]);
}

/** `swb status ID --json` as the operator: the message's first recipient's receipt. */
export async function firstReceipt(home: TempHome, id: number): Promise<ReceiptResult['recipients'][number] | undefined> {
  const status = await runSwb(['status', String(id), '--json'], { home });
  return (JSON.parse(status.stdout) as ReceiptResult).recipients[0];
}

/** An argv as one POSIX shell command line (a config row's `command` is a shell line). */
export function shellCommand(argv: readonly string[]): string {
  return argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
}
