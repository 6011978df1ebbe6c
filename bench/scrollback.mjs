#!/usr/bin/env node
// npm run bench:scrollback — what a row's scrollback costs the emulator alone (no pty, no swb):
// @xterm/headless parsing `seq 1 N` at a grid cell's size (49x11) with 0, 1,000 and 5,000 lines
// of scrollback, with the scrollback already full (steady state) and filling from empty. This is
// the floor under the render benchmark's `seq` flood: swb cannot be cheaper than its emulator.
// Then what swb adds on top for lines that leave the emulator's scrollback: its spilled history
// (src/rows/spilled-history.ts, built in dist) taking the same lines, as a share of the parse.
import xterm from '@xterm/headless';
import { SpilledHistory } from '../dist/src/rows/spilled-history.js';

const { Terminal } = xterm;
const quick = process.argv.includes('--quick');
const lines = quick ? 50_000 : 200_000;
let text = '';
for (let i = 1; i <= lines; i++) text += `${i}\r\n`;
const data = Buffer.from(text);

function parse(term, bytes) {
  for (let off = 0; off < bytes.length; off += 4096) {
    term.input('', true); // parse synchronously, as swb's rows do
    term.write(bytes.subarray(off, off + 4096));
  }
  return new Promise((resolve) => term.write('', resolve));
}

async function measure(scrollback, prefill) {
  const term = new Terminal({ cols: 49, rows: 11, scrollback, allowProposedApi: true });
  if (prefill) await parse(term, Buffer.from('x\r\n'.repeat(scrollback + 20)));
  const c0 = process.cpuUsage();
  await parse(term, data);
  const c = process.cpuUsage(c0);
  term.dispose();
  return (c.user + c.system) / 1000;
}

let parsed1000 = NaN;
// Warm the JIT first so the first configuration is not charged for it.
await measure(1000, true);
console.log(`@xterm/headless, 49x11, ${lines.toLocaleString()} lines of \`seq\` (CPU ms, median of 3)`);
for (const scrollback of [0, 1000, 5000]) {
  const median = async (prefill) => {
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await measure(scrollback, prefill));
    return runs.sort((a, b) => a - b)[1];
  };
  const full = await median(true);
  const filling = await median(false);
  console.log(`scrollback ${String(scrollback).padStart(5)}: ${full.toFixed(0).padStart(5)} ms with it full, ${filling.toFixed(0).padStart(5)} ms filling from empty`);
  if (scrollback === 1000) parsed1000 = full;
}

// Every line of the flood handed to a full spilled history, as the scrollback tap hands it over.
const seqLines = text.split('\r\n').slice(0, -1);
function spill() {
  const history = new SpilledHistory(5000);
  for (let i = 0; i < 5000; i++) history.appendText('x');
  const c0 = process.cpuUsage();
  for (const line of seqLines) history.appendText(line);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}
spill(); // warm
const spilled = [spill(), spill(), spill()].sort((a, b) => a - b)[1];
console.log(`spilled history (5,000 lines kept), the same ${lines.toLocaleString()} lines appended: ${spilled.toFixed(0)} ms, ${((100 * spilled) / parsed1000).toFixed(0)} % of the parse with scrollback 1000`);
