// `swb notify test`: the real binary sends one notification of each kind through the channels the
// config routes it to — notify.command run with the JSON on its stdin, the terminal's sequence
// written to its stdout when that is a terminal — and `--json` says what would be sent, sending nothing.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { swbBinPath } from '../../../src/util/package-root.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { runSwb, swbEnv } from '../../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

/** A command that appends each stdin it gets as a line to OUT. */
const APPENDER = "let s='';process.stdin.on('data',(c)=>(s+=c)).on('end',()=>require('fs').appendFileSync(process.argv[1],s))";

function configWith(home: TempHome, notify: Record<string, unknown>): string {
  const path = join(home.workspace, 'notify-config.json');
  writeFileSync(path, JSON.stringify({ notify }));
  return path;
}

describe('swb notify test', () => {
  it('runs notify.command once for each routed kind, with the event as JSON on its stdin and no body', async () => {
    const home = createTempHome();
    const out = join(home.workspace, 'received');
    const config = configWith(home, { terminal: 'off', command: [process.execPath, '-e', APPENDER, out] });
    const r = await runSwb(['notify', 'test', '--config', config], { home });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const received = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(received.map((p) => p.kind).sort()).toEqual(['mail', 'row-exited', 'waiting', 'wake-held']);
    expect(received.every((p) => p.row === 'notify-test' && p.body === undefined)).toBe(true);
    expect(r.stdout).toContain('turn-ended  terminal: held (not-routed); command: held (not-routed)');
    expect(r.stdout).toContain('mail        terminal: held (not-routed); command: ok');
  });

  it('with --json sends nothing and prints, per event, the bytes and the command it would run', async () => {
    const home = createTempHome();
    const out = join(home.workspace, 'received');
    const config = configWith(home, { terminal: 'osc777', command: [process.execPath, '-e', APPENDER, out], events: { waiting: ['terminal', 'command'] }, body: 'first-line' });
    const r = await runSwb(['notify', 'test', '--json', '--kind', 'waiting', '--config', config], { home });
    expect(r.status).toBe(0);
    const plan = JSON.parse(r.stdout) as { terminal: string; events: Array<Record<string, unknown>> };
    expect(plan.terminal).toBe('osc777');
    expect(plan.events).toEqual([
      {
        kind: 'waiting',
        terminal: {
          kind: 'osc777',
          text: '@notify-test waits for you: permission: This is a test notification from swb notify test.',
          bytes: '\x1b]777;notify;Switchboard;@notify-test waits for you: permission: This is a test notification from swb notify test.\x07',
        },
        command: { argv: [process.execPath, '-e', APPENDER, out], stdin: expect.objectContaining({ kind: 'waiting', reason: 'permission', body: 'This is a test notification from swb notify test.' }) },
      },
    ]);
    expect(existsSync(out)).toBe(false);
  });

  it('exits 1 when the command fails, and refuses an unknown kind (exit 2)', async () => {
    const home = createTempHome();
    const config = configWith(home, { terminal: 'off', command: ['sh', '-c', 'echo down >&2; exit 4'], events: { mail: ['command'] } });
    const failed = await runSwb(['notify', 'test', '--config', config], { home });
    expect(failed.status).toBe(1);
    expect(failed.stdout).toContain('mail        terminal: held (not-routed); command: exit status 4: down');
    const usage = await runSwb(['notify', 'test', '--kind', 'exit'], { home });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^swb notify: --kind "exit": expected one of waiting, turn-ended, mail, row-exited, wake-held/);
  });

  it("writes the detected sequence to its own terminal (kitty's OSC 99 for TERM=xterm-kitty)", async () => {
    const home = createTempHome();
    const config = configWith(home, { events: { 'row-exited': ['terminal'] } });
    const p = spawn(process.execPath, [swbBinPath(), 'notify', 'test', '--config', config], {
      cols: 120,
      rows: 24,
      cwd: home.workspace,
      env: { ...swbEnv(home), TERM: 'xterm-kitty' } as Record<string, string>,
    });
    let output = '';
    let exitCode: number | null = null;
    p.onData((d) => (output += d));
    p.onExit((e) => (exitCode = e.exitCode));
    deferCleanup('swb notify test in a pty', () => p.kill('SIGKILL'));
    await waitUntil(() => exitCode !== null, { what: 'swb notify test to exit' });
    expect(exitCode).toBe(0);
    expect(output).toContain('\x1b]99;i=swb-row-exited-notify-test:d=0;Switchboard\x1b\\\x1b]99;i=swb-row-exited-notify-test:d=1:p=body;@notify-test exited with status 1\x1b\\');
    expect(output).toContain('row-exited  terminal: osc99 written; command: held (not-routed)');
  });
});
