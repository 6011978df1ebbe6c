// notify.command fired by a real server event: a row's `swb send @operator` with a hostile body
// starts the operator's command (from their own config) with the event as JSON on its stdin — the
// row, the kind, the reason, the redacted text, never the body — and nothing of the body reaches a
// shell or the command's argv (no file the body tries to create appears).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../../helpers/cleanup.js';
import { isProcessAlive } from '../../helpers/processes.js';
import { runSwb } from '../../helpers/run-swb.js';
import { createTempHome } from '../../helpers/temp-home.js';
import { startSwb } from '../../helpers/terminal-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

/** Writes its stdin and its argv to OUT (node, no shell): what the command got, as it got it. */
const RECORDER = `
const fs = require('fs');
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  fs.writeFileSync(process.argv[1] + '.tmp', JSON.stringify({ stdin: input, argv: process.argv.slice(1), kind: process.env.SWB_NOTIFY_KIND, token: process.env.SWB_TOKEN ?? null }));
  fs.renameSync(process.argv[1] + '.tmp', process.argv[1]);
});
`;

/** Writes its pid to OUT, then never ends (reads no stdin). */
const LINGERER = `require('fs').writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000);`;

function operatorConfig(home: ReturnType<typeof createTempHome>, notify: object): void {
  // The operator's own config (not the workspace's, which may not run a command until trusted).
  const configDir = join(home.home, 'config', 'switchboard');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(join(configDir, 'config.json'), JSON.stringify({ notify }));
}

describe('notify.command from a real server event', () => {
  test('a row mailing the operator runs the command with the event as JSON on stdin, the body redacted, nothing of it in a shell or argv', async () => {
    const home = createTempHome();
    const out = join(home.home, 'notified.json');
    const pwned = join(home.workspace, 'pwned');
    operatorConfig(home, { terminal: 'off', command: [process.execPath, '-e', RECORDER, out], events: { mail: ['command'] } });
    const body = `$(touch ${pwned}) \`touch ${pwned}\`; touch ${pwned} \x1b]52;c;c2VjcmV0\x07 SECRET-BODY\nsecond line`;
    writeFileSync(join(home.workspace, 'body.txt'), body);
    const t = startSwb({ home, args: ['a=swb send @operator < body.txt && echo SENT-A; sleep 60'] });
    await t.waitForText('SENT-A');
    // A file, not the screen: polled (the harness's waitFor looks again only when output arrives).
    await waitUntil(() => existsSync(out), { what: 'the command’s record' });
    const got = JSON.parse(readFileSync(out, 'utf8')) as { stdin: string; argv: string[]; kind: string; token: string | null };
    expect(got.stdin.endsWith('\n')).toBe(true);
    expect(JSON.parse(got.stdin)).toEqual({
      version: 1,
      kind: 'mail',
      row: 'a',
      reason: 'to-operator',
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      count: 1,
      title: 'Switchboard',
      text: '@a sent you mail',
    });
    expect(got.stdin).not.toContain('SECRET-BODY');
    expect(got.stdin).not.toContain('c2VjcmV0');
    expect(got.argv).toEqual([out]);
    expect(got.kind).toBe('mail');
    expect(got.token).toBeNull();
    expect(existsSync(pwned)).toBe(false);
  });

  test('a command still running when the server stops is killed with it', async () => {
    const home = createTempHome();
    const pidFile = join(home.home, 'lingerer.pid');
    operatorConfig(home, { terminal: 'off', commandTimeoutS: 600, command: [process.execPath, '-e', LINGERER, pidFile], events: { mail: ['command'] } });
    const t = startSwb({ home, args: ['a=swb send @operator hello && echo SENT-A; sleep 60'] });
    await t.waitForText('SENT-A');
    const pid = Number(await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8'), { what: 'the command’s pid' }));
    expect(isProcessAlive(pid)).toBe(true);
    const stopped = await runSwb(['kill-server', '--force'], { home });
    expect(stopped.status).toBe(0);
    await waitUntil(() => !isProcessAlive(pid), { what: 'the command to end with the server' });
  });
});
