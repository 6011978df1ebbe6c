// The terminal channel's audience: each attached client gets a notice in the sequence its own
// terminal takes (detected from its report, or the config's fixed kind), none with "off", until it
// leaves; one client whose write fails does not keep the notice from the others.
import { describe, expect, it } from 'vitest';
import { NotifyTerminals } from '../../../src/server/notify-terminals.js';

const notice = { id: 'swb-mail-api', text: '@api sent you mail' };

describe('NotifyTerminals', () => {
  it('writes each client its own sequence, from what it reported', () => {
    const terminals = new NotifyTerminals('auto');
    const got: Record<string, string[]> = { wez: [], ghostty: [], kitty: [], tmux: [] };
    terminals.add({ termProgram: 'WezTerm' }, (b) => got.wez!.push(b));
    terminals.add({ termProgram: 'ghostty' }, (b) => got.ghostty!.push(b));
    terminals.add({ kittyWindow: true }, (b) => got.kitty!.push(b));
    terminals.add({ term: 'tmux-256color', termProgram: 'WezTerm' }, (b) => got.tmux!.push(b));
    terminals.write(notice);
    expect(got).toEqual({
      wez: ['\x1b]9;Switchboard: @api sent you mail\x07'],
      ghostty: ['\x1b]777;notify;Switchboard;@api sent you mail\x07'],
      kitty: ['\x1b]99;i=swb-mail-api:d=0;Switchboard\x1b\\\x1b]99;i=swb-mail-api:d=1:p=body;@api sent you mail\x1b\\'],
      tmux: ['\x07'],
    });
  });

  it('a fixed kind in the config wins over detection; "off" adds nobody', () => {
    const fixed = new NotifyTerminals('bell');
    const bells: string[] = [];
    fixed.add({ termProgram: 'WezTerm' }, (b) => bells.push(b));
    fixed.write(notice);
    expect(bells).toEqual(['\x07']);
    const off = new NotifyTerminals('off');
    const none: string[] = [];
    off.add({ termProgram: 'WezTerm' }, (b) => none.push(b)).dispose();
    off.add({ termProgram: 'WezTerm' }, (b) => none.push(b));
    off.write(notice);
    expect(none).toEqual([]);
    expect(off.count).toBe(0);
  });

  it('a client that left gets nothing; one whose write throws does not stop the others, and the failure is thrown after', () => {
    const terminals = new NotifyTerminals('osc9');
    const got: string[] = [];
    const gone = terminals.add({}, (b) => got.push(`gone ${b}`));
    terminals.add({}, () => {
      throw new Error('socket closed');
    });
    terminals.add({}, (b) => got.push(b));
    gone.dispose();
    expect(() => terminals.write(notice)).toThrow('socket closed');
    expect(got).toEqual(['\x1b]9;Switchboard: @api sent you mail\x07']);
  });
});
