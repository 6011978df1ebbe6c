// The pinned Claude Code in a pty against the offline Anthropic stand-in, for the probes beside it
// (claude-endings-probe.mjs, claude-transcript-probe.mjs): a temp HOME with onboarding done and the
// project trusted, a settings file the probe writes (its hooks), a minted session id, the screen as
// @xterm/headless reads it, and the waits the probes share. Not a test: a probe records facts.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pty from 'node-pty';
import xterm from '@xterm/headless';
import { startAnthropicStub } from '../../test/support/model-api/anthropic-stub.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const CLAUDE = process.env.SWB_CLAUDE_BIN ?? join(ROOT, '.cache/agents/node_modules/@anthropic-ai/claude-code/bin/claude.exe');
const KEY = 'sk-ant-stub-key-0000000000000000000000';

export const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts Claude in `cwd` = a fresh project. `settings(hookLog)` gives the settings file's content (the
 * hooks append to `hookLog`); `script` is the stand-in's; `args` more of Claude's arguments. Claude's
 * busy marker is sampled every `sampleEveryMs` into `busyChanges` from the start.
 */
export async function startClaudeProbe({ prefix, settings, script, args = [], sampleEveryMs = 20 }) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home);
  mkdirSync(project);
  const hookLog = join(dir, 'hooks.log');
  writeFileSync(hookLog, '');
  writeFileSync(join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] }, projects: { [project]: { hasTrustDialogAccepted: true } } }));
  const settingsFile = join(dir, 'settings.json');
  writeFileSync(settingsFile, JSON.stringify(settings(hookLog)));
  const stub = await startAnthropicStub({ script });
  const sessionId = randomUUID();
  const term = new xterm.Terminal({ cols: 120, rows: 40, allowProposedApi: true });
  const p = pty.spawn(CLAUDE, ['--session-id', sessionId, '--settings', settingsFile, ...args], {
    cols: 120,
    rows: 40,
    cwd: project,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: home, TERM: 'xterm-256color', SHELL: '/bin/bash', ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: KEY, DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
  });
  p.onData((d) => term.write(d));
  const exited = new Promise((resolve) => p.onExit(resolve));
  const screen = () => {
    const b = term.buffer.active;
    const out = [];
    for (let i = 0; i < term.rows; i++) out.push(b.getLine(b.viewportY + i)?.translateToString(true) ?? '');
    return out.join('\n');
  };
  /** Polls `f` every `everyMs` until it holds, or throws naming `what` with the screen. */
  async function until(f, ms, what, everyMs = 20) {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (f()) return;
      await pause(everyMs);
    }
    throw new Error(`timed out waiting for ${what}\n${screen()}`);
  }
  /** Types `text` into Claude's input and waits for it on screen. */
  async function type(text) {
    p.write(text);
    await until(() => screen().includes(text), 10_000, `"${text}" typed`);
    await pause(200);
  }
  /** Claude's busy marker (`esc to interrupt`) going up and down, sampled every `everyMs`. */
  const busyChanges = [];
  let lastBusy = false;
  const sampler = setInterval(() => {
    const busy = /esc to interrupt/.test(screen());
    if (busy !== lastBusy) busyChanges.push({ at: Date.now(), busy });
    lastBusy = busy;
  }, sampleEveryMs);
  /**
   * Ends Claude and the stand-in; the temp folder goes unless `keep`. Claude still writes its files as
   * it exits: the folder goes once it has (or after 10 s), not to be made again behind the removal.
   */
  async function close(keep) {
    clearInterval(sampler);
    p.kill();
    await Promise.race([exited, pause(10_000)]);
    await stub.close();
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  return { dir, home, project, hookLog, stub, p, sessionId, screen, busyChanges, until, type, close };
}
