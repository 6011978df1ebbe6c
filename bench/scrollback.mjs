#!/usr/bin/env node
// npm run bench:scrollback — what a row's scrollback costs the emulator alone (no pty, no swb):
// @xterm/headless parsing `seq 1 N` at a grid cell's size (49x11) with 0, 1,000 and 5,000 lines
// of scrollback, with the scrollback already full (steady state) and filling from empty. This is
// the floor under the render benchmark's `seq` flood: swb cannot be cheaper than its emulator.
import xterm from '@xterm/headless';

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
}
