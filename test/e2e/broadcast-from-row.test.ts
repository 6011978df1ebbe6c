// A running row is online whether or not it holds a connection (issue #11 defect 2): `swb send @all`
// from a row's shell lands in every other running row's inbox, `swb peers` lists running rows online
// and an exited one offline.
import { afterEach, describe, expect, test } from 'vitest';
import type { PeerInfo } from '../../src/protocol/methods.js';
import { runCleanups } from '../helpers/cleanup.js';
import { openMailDbReadOnly } from '../helpers/mail-db.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

describe('@all from a row', () => {
  test('reaches every other running row, none of which holds a connection; peers lists them online', async () => {
    const home = createTempHome();
    const t = startSwb({
      home,
      args: [
        'b=echo B-UP; sleep 60',
        'c=echo C-UP; sleep 60',
        'gone=exit 0',
        // a sends once the exited row shows offline, so "an exited row gets nothing" is decided.
        "a=until swb peers | grep -q '^@gone .*offline'; do sleep 0.1; done; swb send @all hello-everyone && echo SENT-ALL; sleep 60",
      ],
    });
    await t.waitForText('SENT-ALL');
    const db = openMailDbReadOnly(home.paths);
    const [message] = db.messages().filter((m) => m.text === 'hello-everyone');
    expect(message).toMatchObject({ sender: 'a' });
    for (const row of ['b', 'c']) expect(db.deliveriesTo(row).map((d) => d.message)).toContain(message!.id);
    expect(db.deliveriesTo('a')).toEqual([]);
    expect(db.deliveriesTo('gone')).toEqual([]);

    const peers = await runSwb(['peers', '--json'], { home });
    expect(peers.stderr).toBe('');
    const online = Object.fromEntries((JSON.parse(peers.stdout) as { peers: PeerInfo[] }).peers.map((p) => [p.handle, p.online]));
    expect(online).toMatchObject({ a: true, b: true, c: true, gone: false });
  });
});
