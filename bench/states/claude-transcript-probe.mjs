#!/usr/bin/env node
// How soon the pinned Claude Code's transcript tells a turn's end, beside its Stop hook and its screen
// (issue #37): swb reads the transcript for usage, and could read it during a turn for an Esc, which no
// hook of the pinned release reports. For each Esc (mid-answer, while streaming, during a tool) it times,
// from the key: (a) the transcript's `[Request interrupted by user...]` line, (d) the screen's busy marker
// going down. For each turn that ends by itself it times, from the stand-in's end of stream: (b) the
// transcript's last assistant line of the turn, (c) the Stop hook's start, (d) the busy marker down; and
// it records whether that last assistant line can be told from one before a tool (its stop_reason).
// The transcript is watched with fs.watch on its folder (as swb's follower does) plus a 10 ms size poll.
//   node bench/states/claude-transcript-probe.mjs [--rounds N] [--keep] [--lines]   (--lines: the raw lines)
// Not a test: a record of facts; the figures are kept in docs/AGENTS-REAL.md.
import { existsSync, readdirSync, readFileSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';
import { pause, startClaudeProbe } from './claude-probe-harness.mjs';

const argAfter = (flag, fallback) => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = argAfter('--rounds', 3);

const { home, hookLog, stub, p, sessionId, screen, busyChanges, until, type, close } = await startClaudeProbe({
  sampleEveryMs: 10,
  prefix: 'swb-claude-transcript-',
  // Only the Stop hook (as swb's recipe runs it: Claude waits for it); its start is the line's time.
  settings: (log) => ({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `printf '%s Stop\\n' "$(date +%s%3N)" >> '${log}'; cat > /dev/null`, timeout: 10 }] }] } }),
  args: ['--allowedTools', 'Bash'],
  script: {
    turns: [
      { match: '^quick', content: [{ type: 'text', text: 'Quick answer.' }] },
      { match: '^slow', delayMs: 30_000, content: [{ type: 'text', text: 'Slow answer.' }] },
      { match: '^stream', delayMs: 300, streamMs: 8000, content: [{ type: 'text', text: 'A long streamed answer, a few words at a time. '.repeat(12) }] },
      { match: '^sleepy', content: [{ type: 'tool_use', name: 'Bash', input: { command: 'sleep 20', description: 'Sleep' } }], afterTool: 'Slept.' },
      { match: '^compute', content: [{ type: 'text', text: 'Computing.' }, { type: 'tool_use', name: 'Bash', input: { command: 'echo 42', description: 'Compute' } }], afterTool: 'Computed: 42.' },
    ],
    default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
  },
});

// The conversation's file: <home>/.claude/projects/<slug>/<session>.jsonl; new complete lines with when seen.
const lines = [];
let file = null;
let read = 0;
let partial = '';
let watcher = null;
function readNew() {
  if (file === null) return;
  let size;
  try {
    size = statSync(file).size;
  } catch {
    return;
  }
  if (size <= read) return;
  const text = readFileSync(file).subarray(read, size).toString('utf8');
  read = size;
  const parts = (partial + text).split('\n');
  partial = parts.pop();
  const at = Date.now();
  for (const l of parts) if (l) lines.push({ at, line: l });
}
const tail = setInterval(() => {
  if (file === null) {
    const projects = join(home, '.claude', 'projects');
    if (!existsSync(projects)) return;
    for (const slug of readdirSync(projects)) {
      const f = join(projects, slug, `${sessionId}.jsonl`);
      if (existsSync(f)) {
        file = f;
        watcher = watch(join(projects, slug), { persistent: false }, readNew);
      }
    }
  }
  readNew();
}, 10);

const stops = () =>
  readFileSync(hookLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => Number(l.split(' ')[0]));
async function erase(n) {
  p.write('\x7f'.repeat(n));
  await pause(400);
}
const parse = (l) => {
  try {
    return JSON.parse(l.line);
  } catch {
    return null;
  }
};
const INTERRUPTS = new Set(['[Request interrupted by user]', '[Request interrupted by user for tool use]']);
/** The interrupt marker a user line carries (its content's only text block, exactly), or null. */
function interruptOf(o) {
  if (o?.type !== 'user' || !Array.isArray(o.message?.content)) return null;
  const texts = o.message.content.filter((b) => b?.type === 'text');
  return texts.length === 1 && INTERRUPTS.has(texts[0].text) ? texts[0].text : null;
}
const firstAfter = (list, t) => list.find((x) => x >= t);
const fmt = (v) => (v === undefined || v === null ? '—' : `${v} ms`);
const showLines = process.argv.includes('--lines');

const figures = { esc: [], end: [] };

/** An Esc `waitMs` after the turn's Enter: from the key to the interrupt line and the marker down. */
async function esc(kind, prompt, waitMs) {
  const linesBefore = lines.length;
  const busyBefore = busyChanges.length;
  await type(prompt);
  p.write('\r');
  await until(() => /esc to interrupt/.test(screen()), 10_000, 'busy marker');
  await pause(waitMs);
  const key = Date.now();
  p.write('\x1b');
  await pause(2500);
  const after = lines.slice(linesBefore);
  const hit = after.find((l) => interruptOf(parse(l)) !== null && l.at >= key);
  const down = busyChanges.slice(busyBefore).find((b) => !b.busy && b.at >= key);
  const row = { kind, line: hit ? interruptOf(parse(hit)) : null, lineMs: hit ? hit.at - key : null, lineStampMs: hit ? Date.parse(parse(hit).timestamp) - key : null, screenMs: down ? down.at - key : null };
  figures.esc.push(row);
  process.stdout.write(`esc  ${kind.padEnd(17)} (a) ${fmt(row.lineMs)} (its timestamp ${fmt(row.lineStampMs)})  ${row.line ?? 'no interrupt line'}   (d) marker down ${fmt(row.screenMs)}\n`);
  if (showLines) for (const l of after) process.stdout.write(`     +${l.at - key} ${l.line.slice(0, 400)}\n`);
  await erase(prompt.length);
}

/** A turn that ends by itself: from the stand-in's end of stream to its last assistant line, Stop, marker down. */
async function ending(kind, prompt) {
  const linesBefore = lines.length;
  const busyBefore = busyChanges.length;
  const answeredBefore = stub.answered.length;
  await type(prompt);
  p.write('\r');
  await until(() => stops().length > 0 && stub.answered.length > answeredBefore && stops().at(-1) >= stub.answered.at(-1).at, 30_000, 'Stop');
  await pause(1500);
  const end = stub.answered.at(-1).at;
  const after = lines.slice(linesBefore);
  const assistants = after.map((l) => ({ l, o: parse(l) })).filter((x) => x.o?.type === 'assistant');
  const last = assistants.at(-1);
  const stopAt = firstAfter(stops(), end);
  const down = busyChanges.slice(busyBefore).find((b) => !b.busy && b.at >= end);
  // What tells the turn's final assistant line from one before a tool: its stop_reason and content.
  const shape = (x) => `${x.o.message?.stop_reason ?? 'null'}/${(x.o.message?.content ?? []).map((b) => b.type).join('+')}`;
  const row = { kind, lastMs: last ? last.l.at - end : null, stopMs: stopAt ? stopAt - end : null, screenMs: down ? down.at - end : null, shapes: assistants.map(shape).join(' ') };
  figures.end.push(row);
  process.stdout.write(`end  ${kind.padEnd(17)} (b) last assistant ${fmt(row.lastMs)}  (c) Stop ${fmt(row.stopMs)}  (d) marker down ${fmt(row.screenMs)}   assistant lines: ${row.shapes}\n`);
  if (showLines) for (const l of after) process.stdout.write(`     +${l.at - end} ${l.line.slice(0, 400)}\n`);
}

try {
  await until(() => /❯/.test(screen()), 60_000, "Claude's prompt");
  await pause(3000);
  for (let r = 0; r < ROUNDS; r++) {
    await ending('quick answer', 'quick one');
    await ending('text + tool', 'compute it');
    await esc('before the answer', 'slow one', 1500);
    await esc('while streaming', 'stream one', 2500);
    await esc('during a tool', 'sleepy one', 2000);
  }
  const range = (xs) => {
    const v = xs.filter((x) => x !== null).sort((a, b) => a - b);
    return v.length ? `${v[0]}–${v.at(-1)} ms (median ${v[Math.floor(v.length / 2)]}, n=${v.length})` : '—';
  };
  process.stdout.write('\nsummary\n');
  process.stdout.write(`  Esc → (a) interrupt line seen: ${range(figures.esc.map((e) => e.lineMs))}; missing ${figures.esc.filter((e) => e.lineMs === null).length}\n`);
  process.stdout.write(`  Esc → (d) busy marker down:   ${range(figures.esc.map((e) => e.screenMs))}\n`);
  process.stdout.write(`  end of stream → (b) last assistant line: ${range(figures.end.map((e) => e.lastMs))}\n`);
  process.stdout.write(`  end of stream → (c) Stop hook start:     ${range(figures.end.map((e) => e.stopMs))}\n`);
  process.stdout.write(`  end of stream → (d) busy marker down:    ${range(figures.end.map((e) => e.screenMs))}\n`);
} catch (err) {
  process.stdout.write(`probe failed: ${err.message}\n`);
} finally {
  clearInterval(tail);
  watcher?.close();
  await close(process.argv.includes('--keep'));
}
