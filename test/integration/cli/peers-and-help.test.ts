// Discovery commands: `swb peers`, and `--help` on every command.
import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/cli/commands.js';
import { runCommand } from '../../../src/cli/run-command.js';
import type { PeerInfo } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { runSwb } from '../../helpers/run-swb.js';
import { createTempHome } from '../../helpers/temp-home.js';

afterEach(runCleanups);

describe('swb peers', () => {
  it('`swb peers --json` lists the caller and every known session with its state', async () => {
    const { hub, home, paths } = await startTestHub();
    expect(hub.core.sessions.registerRow('builder').ok).toBe(true);
    await connectClient(paths, { session: 'bob' });
    const r = await runSwb(['peers', '--json'], { home });
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { you: string; peers: PeerInfo[] };
    expect(out.you).toBe('operator');
    expect(out.peers.map((p) => [p.handle, p.role, p.online])).toEqual([
      ['bob', 'participant', true],
      ['builder', 'row', false],
      ['operator', 'operator', true],
    ]);
    const text = await runSwb(['peers'], { home });
    expect(text.stdout).toMatch(/@operator\s+online\s+operator.*\(you\)/);
  });
});

describe('help', () => {
  it('every command prints its usage with --help and exits 0, without needing a hub', async () => {
    const home = createTempHome();
    // Each command through the same table and runner bin/swb.ts uses (in-process: ten node
    // startups would cost more than the rest of this file)...
    for (const [name, entry] of Object.entries(COMMANDS)) {
      let stdout = '';
      const status = await runCommand(await entry.load(), ['--help'], {
        stdout: (t) => (stdout += t),
        stderr: (t) => (stdout += t),
        stdin: Readable.from([]),
        env: home.env,
        cwd: home.workspace,
      });
      expect({ name, status, usage: stdout.startsWith(`Usage: swb ${name}`) }).toEqual({ name, status: 0, usage: true });
    }
    // ...and the real binary, top level and for one command.
    const [top, send] = await Promise.all([runSwb(['--help'], { home }), runSwb(['send', '--help'], { home })]);
    expect(top.status).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(top.stdout).toContain(name);
    expect(send.status).toBe(0);
    expect(send.stdout).toMatch(/^Usage: swb send @peer/);
    expect(existsSync(home.paths.runDir)).toBe(false); // no hub was started
  });

  it('an unknown option is a usage error: exit 2', async () => {
    const home = createTempHome();
    const r = await runSwb(['inbox', '--bogus'], { home });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown option --bogus/);
  });
});
