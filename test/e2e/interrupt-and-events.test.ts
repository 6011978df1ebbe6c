// `swb interrupt ROW` cancels a busy agent's turn with its profile's interrupt key (audited, and it
// says whether the row left busy); `swb events` streams what the server sees: rows added, states
// with the rule that decided, mail and receipts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { runSwb, spawnSwb } from '../helpers/run-swb.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

/** A config row read with the sh profile (its interrupt key is Ctrl-C). */
function shRow(home: ReturnType<typeof createTempHome>): string {
  const config = join(home.workspace, 'swb.json');
  // The profile's own command (a plain `sh`), read with the sh profile.
  writeFileSync(config, JSON.stringify({ rows: [{ name: 'shell', profile: 'sh' }] }));
  return config;
}

describe('interrupt and events', () => {
  test('interrupt sends the profile key to a busy row only, audited, and reports that it went idle', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['--config', shRow(home)] });
    await t.waitForText('shell · sh · idle');
    // Not busy: nothing is typed.
    const idle = await runSwb(['interrupt', 'shell', '--json'], { home });
    expect(idle.status).toBe(0);
    expect(JSON.parse(idle.stdout)).toMatchObject({ sent: false, before: 'idle' });
    // Busy with a long command (typed as the operator: attach, type, detach).
    t.write('\r');
    await t.waitForNoText(/enter attach/);
    t.write('sleep 300\r');
    t.write('\x1c');
    await t.waitForText('shell · sh · busy');
    const r = await runSwb(['interrupt', 'shell', '--json'], { home, timeoutMs: 20_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ row: 'shell', sent: true, before: 'busy', leftBusy: true, key: '\u0003' });
    await t.waitForText('shell · sh · idle');
    // Audited like every byte swb types.
    const audit = readFileSync(join(home.paths.runDir, 'audit.log'), 'utf8');
    expect(audit).toMatch(/"row":"shell".*"purpose":"interrupt"/);
    // Not a row's to ask, and a row without a profile has no key.
    const notFound = await runSwb(['interrupt', 'nosuch'], { home });
    expect(notFound.status).toBe(1);
    expect(notFound.stderr).toMatch(/NOT_FOUND/);
  });

  test('swb events streams rows, states with their rule, mail and receipts', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['--config', shRow(home)] });
    await t.waitForText('shell · sh · idle');
    const events = spawnSwb(['events', '--json'], { home });
    // A new row, then mail to it.
    // The stream says on stderr once it is live.
    await waitUntil(() => /watching/.test(events.stderr()), { what: 'swb events to subscribe' });
    const added = await runSwb(['new', '--name', 'extra', '--', 'sh', '-c', 'echo EXTRA; exec sleep 600'], { home });
    expect(added.status).toBe(0);
    const sent = await runSwb(['send', '--as', 'script', '@shell', 'hello there'], { home });
    expect(sent.status).toBe(0);
    const parsed = () =>
      events
        .stdout()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await waitUntil(() => parsed().some((e) => e.kind === 'row' && e.row === 'extra') && parsed().some((e) => e.kind === 'mail'), { timeoutMs: 10_000, what: 'row and mail events' });
    expect(parsed()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'row', row: 'extra', event: 'added' }),
        expect.objectContaining({ kind: 'mail', from: 'script', to: ['shell'] }),
      ]),
    );
    // A state change carries its rule.
    t.write('\r');
    await t.waitForNoText(/enter attach/);
    t.write('sleep 2\r');
    t.write('\x1c');
    await waitUntil(() => parsed().some((e) => e.kind === 'state' && e.row === 'shell' && e.state === 'busy' && typeof e.rule === 'string'), { timeoutMs: 10_000, what: 'a busy state event' });
    events.child.kill('SIGINT');
  });
});
