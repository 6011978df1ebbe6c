import { describe, expect, it } from 'vitest';
import { parseKeySpec, rawKeySequences } from '../../../src/config/keymap.js';
import { InputRouter } from '../../../src/terminal/input-router.js';
import { Emitter } from '../../../src/util/event.js';

function router(detach: string[]) {
  const input = new Emitter<Buffer>();
  const toInk: string[] = [];
  const toRow: string[] = [];
  let detaches = 0;
  let typed = 0;
  const r = new InputRouter(
    input.event,
    (text) => toInk.push(text),
    detach,
    () => detaches++,
    () => typed++,
  );
  const send = (bytes: string | Buffer) => input.fire(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes);
  const attach = () => r.attach({ write: (data) => toRow.push(data.toString('latin1')) });
  return { r, send, attach, toInk, toRow, detaches: () => detaches, typed: () => typed };
}

describe('InputRouter', () => {
  // Ctrl-\ and its modifyOtherKeys / kitty forms, as a keymap gives them.
  const parsed = parseKeySpec('ctrl+\\');
  if (!parsed.ok) throw new Error(parsed.problem);
  const ctrlBackslash = rawKeySequences(parsed.combo);

  it('while attached, passes every read to the row as it came, escapes and all, until the detach key', () => {
    const t = router(ctrlBackslash);
    t.attach();
    t.send('ls -la');
    t.send('\x1b[A\x1b[1;5C');
    t.send(Buffer.from([0xc3, 0xa9]));
    expect(t.toRow).toEqual(['ls -la', '\x1b[A\x1b[1;5C', '\xc3\xa9']);
    expect(t.typed()).toBe(3);
    expect(t.detaches()).toBe(0);
    expect(t.toInk).toEqual([]);
  });

  it('finds the detach key inside a read, in any of its forms: what came before goes to the row, what follows to the dashboard', () => {
    for (const seq of ctrlBackslash) {
      const t = router(ctrlBackslash);
      t.attach();
      t.send(`abc${seq}jk`);
      expect(t.toRow, JSON.stringify(seq)).toEqual(['abc']);
      expect(t.detaches()).toBe(1);
      expect(t.r.attached).toBe(false);
      expect(t.toInk).toEqual(['jk']);
      // The usual case: the key in a read of its own.
      t.attach();
      t.send(seq);
      expect(t.detaches()).toBe(2);
      expect(t.toRow).toEqual(['abc']);
    }
  });

  it('a detach key that cannot be screened by its first byte (an empty sequence) is still searched for', () => {
    const t = router(['', '\x1c']);
    t.attach();
    t.send('x');
    expect(t.detaches()).toBe(1);
  });

  it('on the dashboard, keeps a UTF-8 character split across reads whole for Ink', () => {
    const t = router(ctrlBackslash);
    t.send(Buffer.from([0xc3]));
    t.send(Buffer.from([0xa9, 0x61]));
    expect(t.toInk.join('')).toBe('\u00e9a');
  });
});
