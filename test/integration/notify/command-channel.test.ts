// notify.command run for real: a child process gets the event as JSON on its stdin and nothing of it
// anywhere else (no shell, no argv), the body stays out unless the config opts in, a command that
// never exits has its whole process group killed at its timeout, and failures are outcomes and log
// lines, never exceptions.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandChannel, type CommandOutcome } from '../../../src/notify/command-channel.js';
import { resolveNotifyPolicy } from '../../../src/notify/notify-policy.js';
import type { NotifySettings } from '../../../src/config/notify-settings.js';
import { notificationPayload } from '../../../src/notify/notification-payload.js';
import { Notifier } from '../../../src/notify/notifier.js';
import { isProcessAlive } from '../../helpers/processes.js';
import { waitUntil } from '../../helpers/wait-until.js';

const dirs: string[] = [];
const disposables: Array<{ dispose(): void }> = [];
afterEach(() => {
  for (const d of disposables.splice(0)) d.dispose();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'swb-notify-'));
  dirs.push(d);
  return d;
}

/** A command that writes its stdin and the variables it got into OUT (argv, no shell). */
const RECORDER = `
const fs = require('fs');
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => fs.writeFileSync(process.argv[1], JSON.stringify({ stdin: input, env: process.env })));
`;

function recordingNotifier(settings: NotifySettings, env: NodeJS.ProcessEnv = process.env) {
  const dir = tempDir();
  const out = join(dir, 'received.json');
  const logs: string[] = [];
  const notifier = new Notifier({ policy: resolveNotifyPolicy({ terminal: 'off', command: [process.execPath, '-e', RECORDER, out], ...settings }), env, log: (l) => logs.push(l) });
  disposables.push(notifier);
  const received = async () => {
    await notifier.commandChannel!.idle();
    const got = await waitUntil(() => existsSync(out) && (JSON.parse(readFileSync(out, 'utf8')) as { stdin: string; env: Record<string, string> }), { what: 'the command to record its stdin' });
    return { payload: JSON.parse(got.stdin) as Record<string, unknown>, raw: got.stdin, env: got.env };
  };
  return { dir, notifier, received, logs };
}

describe('the command channel', () => {
  it('hands a hostile body over as JSON on stdin only: no shell runs it, and by default it is not even there', async () => {
    const t = recordingNotifier({});
    const marker = join(t.dir, 'pwned');
    const keep = join(t.dir, 'keep');
    writeFileSync(keep, 'still here');
    const body = `$(touch ${marker}); \`touch ${marker}\`; "; rm -rf ${keep}; '`;
    t.notifier.notify({ kind: 'mail', reason: 'to-operator', row: 'api', at: Date.UTC(2026, 11, 5), body });
    const { payload, raw } = await t.received();
    expect(payload).toEqual({
      version: 1,
      kind: 'mail',
      row: 'api',
      reason: 'to-operator',
      at: '2026-12-05T00:00:00.000Z',
      count: 1,
      title: 'Switchboard',
      text: '@api sent you mail',
    });
    expect(raw).not.toContain('touch');
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(keep, 'utf8')).toBe('still here');
    expect(t.logs).toEqual([]);
  });

  it('carries the body verbatim with body "first-line", and still nothing executes — even a shell in the argv only reads it', async () => {
    const dir = tempDir();
    const marker = join(dir, 'pwned');
    const keep = join(dir, 'keep');
    writeFileSync(keep, 'still here');
    const body = `$(touch ${marker}); \`touch ${marker}\`; "; rm -rf ${keep}; '`;
    const out = join(dir, 'stdin.json');
    const notifier = new Notifier({ policy: resolveNotifyPolicy({ terminal: 'off', body: 'first-line', command: ['sh', '-c', 'cat > "$1"', 'sh', out] }), log: () => undefined });
    disposables.push(notifier);
    notifier.notify({ kind: 'waiting', reason: 'question', row: 'api', at: Date.now(), body: `${body}\nsecond line` });
    await notifier.commandChannel!.idle();
    const payload = JSON.parse(readFileSync(out, 'utf8')) as { body: string; text: string };
    expect(payload.body).toBe(body);
    expect(payload.text).toBe(`@api asks you a question: ${body}`);
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(keep, 'utf8')).toBe('still here');
  });

  it('gives the command a minimal environment: no swb token, the few documented variables and the notification', async () => {
    const t = recordingNotifier({}, { PATH: process.env.PATH, HOME: '/home/op', SWB_TOKEN: 'secret-token', SWB_SESSION: 'api', AWS_SECRET_ACCESS_KEY: 'k', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/bus' });
    t.notifier.notify({ kind: 'row-exited', reason: 'non-zero', exitCode: 2, row: 'api', at: Date.now() });
    const { env } = await t.received();
    expect(Object.keys(env).filter((k) => !['PATH', 'HOME', 'DBUS_SESSION_BUS_ADDRESS'].includes(k) && !k.startsWith('SWB_NOTIFY_')).filter((k) => !/^(LC_|_|PWD|SHLVL)/.test(k))).toEqual([]);
    expect(env).toMatchObject({ HOME: '/home/op', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/bus', SWB_NOTIFY_KIND: 'row-exited', SWB_NOTIFY_ROW: 'api', SWB_NOTIFY_TEXT: '@api exited with status 2' });
    expect(env).not.toHaveProperty('SWB_TOKEN');
    expect(env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
  });

  it('kills the whole process group of a command that never exits, at its timeout, without the caller waiting', async () => {
    const dir = tempDir();
    const pids = join(dir, 'pids');
    const logs: string[] = [];
    const channel = new CommandChannel({ argv: ['sh', '-c', 'sleep 1000 & echo $! > "$1"; echo $$ >> "$1"; wait', 'sh', pids], timeoutMs: 300, log: (l) => logs.push(l) });
    disposables.push(channel);
    const outcomes: CommandOutcome[] = [];
    channel.onFinished(({ outcome }) => outcomes.push(outcome));
    const started = Date.now();
    channel.run(notificationPayload({ kind: 'waiting', reason: 'permission', row: 'api', at: started }, { body: 'none' }));
    expect(Date.now() - started).toBeLessThan(250);
    expect(channel.runningCount).toBe(1);
    const [sleeper, shell] = (await waitUntil(() => existsSync(pids) && readFileSync(pids, 'utf8').trim().split('\n').length === 2 && readFileSync(pids, 'utf8').trim().split('\n').map(Number), { what: 'the pids' }))!;
    await waitUntil(() => outcomes.length === 1, { what: 'the timeout' });
    expect(outcomes[0]).toMatchObject({ ok: false, why: 'timeout' });
    await waitUntil(() => !isProcessAlive(sleeper!) && !isProcessAlive(shell!), { what: 'the process group to die' });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^notify command sh: still running after 300 ms: its process group was killed$/);
  });

  it('runs a bounded number at once, dropping the rest with a log line, and reports a failing or missing program without throwing', async () => {
    const logs: string[] = [];
    const outcomes: CommandOutcome[] = [];
    const busy = new CommandChannel({ argv: ['sh', '-c', 'read line; exit 0'], timeoutMs: 5000, log: (l) => logs.push(l), maxRunning: 1 });
    disposables.push(busy);
    busy.onFinished(({ outcome }) => outcomes.push(outcome));
    const payload = notificationPayload({ kind: 'mail', reason: 'to-operator', row: 'api', at: Date.now() }, { body: 'none' });
    busy.run(payload);
    busy.run(payload);
    await busy.idle();
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.why)).sort()).toEqual(['busy', 'ok']);
    expect(logs).toEqual(['notify command sh: 1 notify commands still running; this mail notification for @api was dropped']);

    const failing = new CommandChannel({ argv: ['sh', '-c', 'echo "no route to ntfy" >&2; exit 3'], timeoutMs: 5000, log: (l) => logs.push(l) });
    const missing = new CommandChannel({ argv: [join(tempDir(), 'no-such-program')], timeoutMs: 5000, log: (l) => logs.push(l) });
    disposables.push(failing, missing);
    expect(() => failing.run(payload)).not.toThrow();
    expect(() => missing.run(payload)).not.toThrow();
    await Promise.all([failing.idle(), missing.idle()]);
    await waitUntil(() => logs.length === 3, { what: 'both failures logged' });
    expect(logs.slice(1).sort()).toEqual([expect.stringMatching(/no-such-program: spawn .*ENOENT/), 'notify command sh: exit status 3: no route to ntfy']);
  });
});
