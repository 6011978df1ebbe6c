// The dashboard's per-row mute is the server notifier's: setting it mutes the notifier (its held
// notifications for the row dropped), every client hears the change once, and setting what is
// already set says nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/store/open-database.js';
import { RowRecordStore } from '../../../src/store/row-record-store.js';
import { Notifier } from '../../../src/notify/notifier.js';
import { resolveNotifyPolicy } from '../../../src/notify/notify-policy.js';
import { NotifierMutes } from '../../../src/server/row-mutes.js';
import type { TerminalNotice } from '../../../src/notify/terminal-sequences.js';
import { FakeClock } from '../../helpers/fake-clock.js';

describe('NotifierMutes', () => {
  it('mutes and unmutes the notifier, telling each change once', () => {
    const clock = new FakeClock();
    const notices: TerminalNotice[] = [];
    const notifier = new Notifier({ policy: resolveNotifyPolicy({ terminal: 'osc9' }), clock, writeTerminal: (n) => notices.push(n) });
    const mutes = new NotifierMutes(notifier);
    const heard: Array<{ row: string; muted: boolean }> = [];
    mutes.onMuted((m) => heard.push(m));
    mutes.setMuted('api', true);
    mutes.setMuted('api', true);
    expect(mutes.muted('api')).toBe(true);
    notifier.notify({ kind: 'mail', reason: 'to-operator', row: 'api', at: clock.now() });
    notifier.notify({ kind: 'mail', reason: 'to-operator', row: 'web', at: clock.now() });
    mutes.setMuted('api', false);
    notifier.notify({ kind: 'mail', reason: 'to-operator', row: 'api', at: clock.now() });
    expect(heard).toEqual([
      { row: 'api', muted: true },
      { row: 'api', muted: false },
    ]);
    expect(notices.map((n) => n.text)).toEqual(['@web sent you mail', '@api sent you mail']);
    notifier.dispose();
    mutes.dispose();
  });

  it('survives a server restart: kept with the row records in mail.db, read back by the next server, gone with the row record', () => {
    const dir = mkdtempSync(join(tmpdir(), 'swb-mutes-'));
    const file = join(dir, 'mail.db');
    const clock = new FakeClock();
    const policy = resolveNotifyPolicy({ terminal: 'osc9' });
    try {
      // The first server: api and web muted, then web unmuted again.
      let db = openDatabase(file);
      let records = new RowRecordStore(db);
      records.save({ name: 'api', spec: '{}', wake: null, sessionId: null });
      let notifier = new Notifier({ policy, clock, writeTerminal: () => undefined });
      let mutes = new NotifierMutes(notifier, records);
      mutes.setMuted('api', true);
      mutes.setMuted('web', true);
      mutes.setMuted('web', false);
      notifier.dispose();
      mutes.dispose();
      db.close();

      // The next server, from the same file: api is muted before anyone sets it, and its notices go nowhere.
      db = openDatabase(file);
      records = new RowRecordStore(db);
      expect(records.mutedRows()).toEqual(['api']);
      const notices: TerminalNotice[] = [];
      notifier = new Notifier({ policy, clock, writeTerminal: (n) => notices.push(n) });
      mutes = new NotifierMutes(notifier, records);
      expect(mutes.muted('api')).toBe(true);
      expect(mutes.muted('web')).toBe(false);
      notifier.notify({ kind: 'mail', reason: 'to-operator', row: 'api', at: clock.now() });
      notifier.notify({ kind: 'mail', reason: 'to-operator', row: 'web', at: clock.now() });
      expect(notices.map((n) => n.text)).toEqual(['@web sent you mail']);
      // The row removed (its record forgotten): a new row of that name starts unmuted.
      records.forget('api');
      expect(records.mutedRows()).toEqual([]);
      notifier.dispose();
      mutes.dispose();
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
