// keepRecycledLineObjects: xterm's BufferLine.copyFrom, patched to keep a recycled line's empty maps,
// leaves every line in the state xterm's own copy would - random lines with combined characters,
// wide ones, colours and extended attributes (curly underlines), wrapped or not - and, for plain
// lines, keeps the line's own map objects (the garbage it exists to avoid).
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keepRecycledLineObjects, type LineInternals } from '../../../src/rows/recycled-line-objects.js';

// A copy of xterm of this file's own: the patch is made once per BufferLine prototype, and another
// test's RowScreen may have patched the shared module's already.
const require = createRequire(import.meta.url);
const xtermPath = require.resolve('@xterm/headless');
delete require.cache[xtermPath];
const { Terminal } = require(xtermPath) as typeof import('@xterm/headless');
delete require.cache[xtermPath];

interface Line extends LineInternals {
  clone(): Line;
}

function writeSync(t: InstanceType<typeof Terminal>, text: string): Promise<void> {
  return new Promise((resolve) => t.write(text, resolve));
}

function linesOf(t: InstanceType<typeof Terminal>): Line[] {
  const lines = (t as unknown as { _core: { _bufferService: { buffer: { lines: { length: number; get(i: number): Line } } } } })._core._bufferService.buffer.lines;
  return Array.from({ length: lines.length }, (_, i) => lines.get(i));
}

function state(l: Line) {
  return { data: Array.from(l._data.subarray(0, l.length * 3)), length: l.length, combined: { ...l._combined }, extended: JSON.stringify(l._extendedAttrs), wrapped: l.isWrapped };
}

describe('keepRecycledLineObjects', () => {
  it("copies every line as xterm's own copyFrom does, and keeps a plain line's own maps", async () => {
    const t = new Terminal({ cols: 12, rows: 8, allowProposedApi: true, logLevel: 'off' });
    const proto = Object.getPrototypeOf(linesOf(t)[0]) as Line;
    const original = proto.copyFrom;
    expect(keepRecycledLineObjects(t)).toBe(true);
    const patched = proto.copyFrom;
    expect(patched).not.toBe(original);
    expect(keepRecycledLineObjects(t)).toBe(true); // once per prototype
    expect(proto.copyFrom).toBe(patched);

    const piece = fc.constantFrom('a', 'Z', ' ', 'e\u0301', '😀', '中', '\x1b[31m', '\x1b[4:3m', '\x1b[58;2;1;2;3m', '\x1b[0m', '\r\n', '\x1b[K');
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 60 }), fc.nat(), fc.nat(), async (pieces, i, j) => {
        await writeSync(t, `\x1b[H\x1b[2J${pieces.join('')}`);
        const lines = linesOf(t);
        const dst = lines[i % lines.length]!;
        const src = lines[j % lines.length]!;
        const byXterm = dst.clone();
        const byPatch = dst.clone();
        original.call(byXterm, src);
        patched.call(byPatch, src);
        expect(state(byPatch)).toEqual(state(byXterm));
      }),
      { numRuns: 300 },
    );

    // A plain line recycled into a plain blank keeps its maps.
    await writeSync(t, '\x1bcplain\r\n'); // a full reset first: no colour or underline of the cases above
    const [plain, blank] = linesOf(t);
    const maps = [plain!._combined, plain!._extendedAttrs];
    plain!.copyFrom(blank!);
    expect([plain!._combined, plain!._extendedAttrs]).toEqual(maps);
    expect(plain!._combined).toBe(maps[0]);
    expect(plain!._extendedAttrs).toBe(maps[1]);
    expect(state(plain!)).toEqual(state(blank!));
    t.dispose();
  });

  it('patches nothing where the internals are not there', () => {
    expect(keepRecycledLineObjects({} as never)).toBe(false);
  });
});
