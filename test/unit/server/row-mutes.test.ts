// The dashboard's per-row mute is the server notifier's: setting it mutes the notifier (its held
// notifications for the row dropped), every client hears the change once, and setting what is
// already set says nothing.
import { describe, expect, it } from 'vitest';
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
});
