import { describe, expect, it } from 'vitest';
import { parseKeySpec } from '../../../src/config/key-grammar.js';
import { rawKeySequences } from '../../../src/terminal/key-encodings.js';
import { InputRouter, type KeyPath, type KeyPathHandlers } from '../../../src/terminal/input-router.js';
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

describe('InputRouter with a key path', () => {
  const parsed = parseKeySpec('ctrl+\\');
  if (!parsed.ok) throw new Error(parsed.problem);
  const ctrlBackslash = rawKeySequences(parsed.combo);

  /** A key path that records what it was asked; `hold` plays the thread stopping on a read. */
  function fakePath() {
    const starts: Array<{ fd: number; screened: Uint8Array }> = [];
    let on: KeyPathHandlers | null = null;
    let held: Buffer | null = null;
    const path: KeyPath = {
      get running() {
        return on !== null;
      },
      start(fd, screened, handlers) {
        starts.push({ fd, screened });
        on = handlers;
        return true;
      },
      stop() {
        on = null;
        const h = held;
        held = null;
        return h;
      },
    };
    return {
      path,
      starts,
      /** The thread wrote keys to the row. */
      typed: () => on!.typed(),
      /** The thread stopped on this read and handed it back. */
      handBack: (bytes: string) => {
        const handlers = on!;
        on = null;
        handlers.held(Buffer.from(bytes, 'latin1'));
      },
      /** The thread has stopped on this read; the router has not heard yet (a stop() gets it). */
      holdUnheard: (bytes: string) => (held = Buffer.from(bytes, 'latin1')),
    };
  }

  function routerWithPath(directFd: () => number | undefined = () => 7) {
    const input = new Emitter<Buffer>();
    const toInk: string[] = [];
    const toRow: string[] = [];
    let detaches = 0;
    let typed = 0;
    const p = fakePath();
    const r = new InputRouter(input.event, (text) => toInk.push(text), ctrlBackslash, () => detaches++, () => typed++, null, p.path);
    const attach = () => r.attach({ write: (data) => toRow.push(data.toString('latin1')), directFd });
    const send = (bytes: string) => input.fire(Buffer.from(bytes, 'latin1'));
    return { r, p, attach, send, toInk, toRow, detaches: () => detaches, typed: () => typed };
  }

  it('attaching hands plain keys to the path, with the row descriptor and the detach keys\' first bytes; its news counts as typing', () => {
    const t = routerWithPath();
    t.attach();
    expect(t.p.path.running).toBe(true);
    expect(t.p.starts).toHaveLength(1);
    expect(t.p.starts[0]!.fd).toBe(7);
    const marked = [...t.p.starts[0]!.screened.entries()].filter(([, v]) => v === 1).map(([b]) => b);
    expect(marked).toEqual([...new Set(ctrlBackslash.map((s) => s.charCodeAt(0)))].sort((a, b) => a - b));
    t.p.typed();
    expect(t.typed()).toBe(1);
  });

  it('a read the path hands back is routed (here the detach key: what came before goes to the row, the rest to the dashboard), and the path is not restarted once detached', () => {
    const t = routerWithPath();
    t.attach();
    t.p.handBack('ab\x1cjk');
    expect(t.toRow).toEqual(['ab']);
    expect(t.detaches()).toBe(1);
    expect(t.toInk).toEqual(['jk']);
    expect(t.p.path.running).toBe(false);
    expect(t.p.starts).toHaveLength(1);
  });

  it('a read handed back while still attached goes to the row, and the path takes the keys again', () => {
    const t = routerWithPath();
    t.attach();
    t.p.handBack('\x1b[A');
    expect(t.toRow).toEqual(['\x1b[A']);
    expect(t.p.path.running).toBe(true);
    expect(t.p.starts).toHaveLength(2);
  });

  it('detaching stops the path; a read it held goes to the row it was typed for, and the path stays stopped', () => {
    const t = routerWithPath();
    t.attach();
    t.p.holdUnheard('typed late');
    t.r.detach();
    expect(t.toRow).toEqual(['typed late']);
    expect(t.p.path.running).toBe(false);
    expect(t.p.starts).toHaveLength(1);
    t.send('q');
    expect(t.toInk).toEqual(['q']);
  });

  it('no path while the row cannot take keys straight (its queue holds input, or it exited): the router writes, and tries again after each read', () => {
    let fd: number | undefined;
    const t = routerWithPath(() => fd);
    t.attach();
    expect(t.p.path.running).toBe(false);
    t.send('x');
    expect(t.toRow).toEqual(['x']);
    expect(t.p.path.running).toBe(false);
    fd = 9;
    t.send('y');
    expect(t.toRow).toEqual(['x', 'y']);
    expect(t.p.path.running).toBe(true);
    expect(t.p.starts[0]!.fd).toBe(9);
  });

  it('the attached row hears that keys reached it, whether the router wrote them or the path did; the row attached next hears only its own', () => {
    const t = routerWithPath();
    const heard = { a: 0, b: 0 };
    t.r.attach({ write: (data) => t.toRow.push(data.toString('latin1')), directFd: () => undefined, typed: () => heard.a++ });
    t.send('x');
    expect(heard).toEqual({ a: 1, b: 0 });
    t.r.attach({ write: (data) => t.toRow.push(data.toString('latin1')), directFd: () => 7, typed: () => heard.b++ });
    t.p.typed();
    expect(heard).toEqual({ a: 1, b: 1 });
    expect(t.typed()).toBe(2);
  });

  it('dispose stops the path', () => {
    const t = routerWithPath();
    t.attach();
    t.r.dispose();
    expect(t.p.path.running).toBe(false);
  });
});
