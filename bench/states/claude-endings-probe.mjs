#!/usr/bin/env node
// What the pinned Claude Code emits at the turn endings its screen cannot tell from a pause (issue #37):
// an Esc mid-turn, an Esc right after a prompt, an Esc during a running tool, /clear and /compact. It runs
// the real CLI in a pty against the offline Anthropic stand-in with a settings file whose every hook
// appends "<ms epoch> <event> <payload>" to a log, follows the conversation's transcript (a 10 ms poll of
// its size, as a tail would), and prints each step's key time and what came after it, in ms from the key.
//   node bench/states/claude-endings-probe.mjs [--keep] [--screens]   (--screens: each step's screen after it)
// Not a test: a record of facts the hook signal table (src/agents/hook-signal.ts) relies on.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pause, startClaudeProbe } from './claude-probe-harness.mjs';

const EVENTS = ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PostToolBatch', 'Stop', 'StopFailure', 'SubagentStop', 'Notification', 'PreCompact', 'PostCompact', 'SessionStart', 'SessionEnd', 'PermissionRequest', 'PermissionDenied', 'UserPromptExpansion', 'MessageDisplay'];

// As swb's recipe runs them: in the background (async), but Stop, whose answer Claude waits for.
const hook = (e, hookLog) => ({ hooks: [{ type: 'command', command: `printf '%s ${e} %s\\n' "$(date +%s%3N)" "$(head -c 600 | tr '\\n' ' ')" >> '${hookLog}'`, timeout: 10, ...(e === 'Stop' ? {} : { async: true }) }] });
// The screen's busy marker is sampled every 20 ms (busyChanges).
const { home, hookLog, p, screen, busyChanges, until, type, close } = await startClaudeProbe({
  prefix: 'swb-claude-endings-',
  settings: (log) => ({ hooks: Object.fromEntries(EVENTS.map((e) => [e, [hook(e, log)]])) }),
  args: ['--allowedTools', 'Bash'],
  script: {
    turns: [
      { match: '^quick', content: [{ type: 'text', text: 'Quick answer.' }] },
      { match: '^slow', delayMs: 30_000, content: [{ type: 'text', text: 'Slow answer.' }] },
      { match: '^stream', delayMs: 500, streamMs: 8000, content: [{ type: 'text', text: 'A long streamed answer, a few words at a time. '.repeat(12) }] },
      { match: '^sleepy', content: [{ type: 'tool_use', name: 'Bash', input: { command: 'sleep 20', description: 'Sleep' } }], afterTool: 'Slept.' },
    ],
    default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
  },
});

// The transcripts, followed as a tail would: each new line with when it was seen, and which file (after
// /clear Claude goes on in a new one, under a new session id).
const transcriptLines = [];
const followed = new Map(); // path → { size, partial }
const tail = setInterval(() => {
  const projects = join(home, '.claude', 'projects');
  if (!existsSync(projects)) return;
  for (const d of readdirSync(projects)) {
    const folder = join(projects, d);
    if (!statSync(folder).isDirectory()) continue;
    for (const f of readdirSync(folder)) {
      if (!f.endsWith('.jsonl')) continue;
      const path = join(folder, f);
      const seen = followed.get(path) ?? { size: 0, partial: '' };
      followed.set(path, seen);
      const size = statSync(path).size;
      if (size <= seen.size) continue;
      const text = readFileSync(path, 'utf8').slice(seen.size);
      seen.size = size;
      const lines = (seen.partial + text).split('\n');
      seen.partial = lines.pop();
      const at = Date.now();
      for (const line of lines) if (line) transcriptLines.push({ at, line, file: f.slice(0, 8) });
    }
  }
}, 10);


const hookLines = () =>
  readFileSync(hookLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [at, ev, ...rest] = l.split(' ');
      return { at: Number(at), event: ev, payload: rest.join(' ') };
    });
const summary = (l) => {
  try {
    const o = JSON.parse(l);
    const c = o.message?.content;
    const text = typeof c === 'string' ? c : Array.isArray(c) ? c.map((b) => b.text ?? b.type).join('|') : '';
    return `${o.type}${o.subtype ? `/${o.subtype}` : ''}${o.isMeta ? ' meta' : ''}${o.isCompactSummary ? ' compact-summary' : ''} ${text.slice(0, 90).replace(/\n/g, ' ')}`;
  } catch {
    return l.slice(0, 100);
  }
};

const results = [];
async function step(name, keyAction, settleMs) {
  const hooksBefore = hookLines().length;
  const linesBefore = transcriptLines.length;
  const busyBefore = busyChanges.length;
  const at = await keyAction();
  await pause(settleMs);
  const out = [`## ${name} (key at 0 ms)`];
  for (const h of hookLines().slice(hooksBefore)) out.push(`  hook ${String(h.at - at).padStart(6)} ms  ${h.event}  ${h.payload.replace(/"transcript_path":"[^"]*",?|"cwd":"[^"]*",?|"session_id":"[^"]*",?/g, '').slice(0, 220)}`);
  for (const t of transcriptLines.slice(linesBefore)) out.push(`  tx   ${String(t.at - at).padStart(6)} ms  [${t.file}] ${summary(t.line)}`);
  for (const b of busyChanges.slice(busyBefore)) out.push(`  scr  ${String(b.at - at).padStart(6)} ms  ${b.busy ? 'busy marker up' : 'busy marker down'}`);
  if (process.argv.includes('--screens')) out.push(screen().split('\n').filter((l) => l.trim()).slice(-12).map((l) => `  | ${l}`).join('\n'));
  results.push(out.join('\n'));
  process.stdout.write(`${out.join('\n')}\n`);
}
const press = (k) => async () => {
  const at = Date.now();
  p.write(k);
  return at;
};
const enter = (text) => async () => {
  await type(text);
  const at = Date.now();
  p.write('\r');
  return at;
};
const erase = async (n) => {
  p.write('\x7f'.repeat(n));
  await pause(500);
};

try {
  await until(() => /❯/.test(screen()), 60_000, "Claude's prompt");
  await pause(3000);
  await step('quick turn (Enter)', enter('quick one'), 4000);
  await step('slow turn (Enter)', enter('slow one'), 2000);
  await step('Esc mid-turn', press('\x1b'), 3000);
  await erase('slow one'.length);
  await step('slow two (Enter), Esc 250 ms after', async () => {
    const at = await enter('slow two')();
    await pause(250);
    p.write('\x1b');
    return at;
  }, 3000);
  await erase('slow two'.length);
  await step('stream turn (Enter)', enter('stream one'), 2500);
  await step('Esc while streaming', press('\x1b'), 3000);
  await erase('stream one'.length);
  await step('tool turn (Enter): Bash sleep 20', enter('sleepy one'), 4000);
  await step('Esc during the tool', press('\x1b'), 3000);
  await erase('sleepy one'.length);
  await step('/clear (Enter)', enter('/clear'), 4000);
  await step('quick turn (Enter)', enter('quick two'), 4000);
  await step('/compact (Enter)', enter('/compact'), 8000);
  await step('quick turn after compact (Enter)', enter('quick three'), 4000);
} catch (err) {
  process.stdout.write(`probe failed: ${err.message}\n`);
} finally {
  clearInterval(tail);
  process.stdout.write(`\ntranscripts: ${[...followed.keys()].join(' ')}\nhook log: ${hookLog}\n`);
  await close(process.argv.includes('--keep'));
}
