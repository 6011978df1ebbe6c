// The server a client launches starts from its own CommonJS entry (src/server/server-main.ts) and
// `swb server` typed by hand from bin/swb; both load the server bundle with the code cache the build
// wrote (V8 takes it only under the flag hash it was made under: src/server/server-flag-hash.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { packageBinScript } from '../../src/util/package-root.js';
import { runSwb, spawnSwb } from '../helpers/run-swb.js';
import { readStartTrace, traceMark } from '../helpers/start-trace-file.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

/** The marks of the process that marked `label`. */
function marksOf(file: string, label: string): string[] {
  const marks = readStartTrace(file);
  const pid = marks.find((m) => m.label === label)?.pid;
  return marks.filter((m) => m.pid === pid).map((m) => m.label);
}

describe('the server’s entry', () => {
  test('a client launches the server from its CommonJS entry, which loads the bundle with its code cache and draws the rows', async () => {
    const home = createTempHome();
    const trace = join(home.home, 'start-trace');
    const t = startSwb({ home, args: ['one=printf "ENTRY-UP\\n"; exec sleep 600'], env: { SWB_START_TRACE: trace } });
    await t.waitForText('ENTRY-UP', { timeoutMs: 20_000 });
    const server = traceMark(trace, 'node started (server)');
    expect(server).toBeDefined();
    const argv = readFileSync(`/proc/${server!.pid}/cmdline`, 'utf8').split('\0');
    expect(argv.find((a) => a.endsWith('.cjs') || a.endsWith('.js'))).toMatch(/dist\/src\/server\/server-main\.cjs$/);
    expect(argv).toContain('--max-semi-space-size=2');
    expect(marksOf(trace, 'node started (server)')).toContain('server bundle loaded (code cache used)');
    await runSwb(['kill-server', '--force'], { home });
    await t.waitForExit();
  }, 60_000);

  test('`swb server` typed by hand loads the bundle with its code cache too', async () => {
    const home = createTempHome();
    const trace = join(home.home, 'start-trace');
    const server = spawnSwb(['server'], { home, via: [packageBinScript()], env: { SWB_START_TRACE: trace, XDG_CONFIG_HOME: join(home.home, 'config') } });
    // 'serving', not 'listening': the server listens for clients before its hub is up, and kill-server asks the hub.
    await waitUntil(() => traceMark(trace, 'serving'), { what: 'the server to serve', timeoutMs: 20_000 });
    expect(marksOf(trace, 'serving')).toContain('server bundle loaded (code cache used)');
    await runSwb(['kill-server', '--force'], { home });
    expect((await server.exited).status).toBe(0);
  }, 60_000);
});
