// What the workspace server logs passes src/text/sanitize (issue #34.3): a row record tampered with in
// the store (its name carrying an OSC 52 clipboard write and a BEL) reaches server.log only as
// visible placeholders, so `tail server.log` cannot write to the operator's clipboard.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { RowRecordStore } from '../../src/store/row-record-store.js';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

const OSC52 = '\x1b]52;c;cHduZWQ=\x07';

describe('server.log', () => {
  test('a tampered row record\u2019s name is logged without ESC, BEL or any other control byte', async () => {
    const home = createTempHome();
    mkdirSync(dirname(home.paths.dbFile), { recursive: true, mode: 0o700 });
    const db = openDatabase(home.paths.dbFile);
    const records = new RowRecordStore(db);
    // One record whose spec is not JSON, one whose name is not a handle: each is logged by name.
    records.save({ name: `broken${OSC52}`, spec: '{not json', wake: null, sessionId: null });
    records.save({ name: `evil${OSC52}\x9b31m`, spec: JSON.stringify({ name: `evil${OSC52}\x9b31m`, command: 'true' }), wake: null, sessionId: null });
    db.close();

    const t = startSwb({ home, args: ['keep=echo KEEP-UP; exec sleep 600'] });
    await t.waitForText('KEEP-UP');
    const log = join(home.paths.runDir, 'server.log');
    const text = await waitUntil(() => {
      const s = readFileSync(log, 'utf8');
      return /row record broken.* is not readable/.test(s) && /evil/.test(s) && s;
    }, { what: 'server.log to name both tampered records', timeoutMs: 15_000 });
    const bytes = readFileSync(log);
    const controls = [...bytes].filter((b) => b !== 0x0a && (b < 0x20 || b === 0x7f));
    expect(controls).toEqual([]);
    expect(text).not.toMatch(/[\u0080-\u009f]/);
    expect(text).toContain('row record broken\u241b is not readable');
  });
});
