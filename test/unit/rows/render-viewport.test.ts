import { describe, expect, test } from 'vitest';
import { RowScreen } from '../../../src/rows/row-screen.js';
import { SGR_RESET, ViewportRenderer, renderViewport } from '../../../src/rows/render-viewport.js';

async function screenWith(data: string, cols = 20, rows = 4, scrollback?: number): Promise<RowScreen> {
  const screen = new RowScreen({ cols, rows, scrollback });
  screen.write(data);
  await screen.flush();
  return screen;
}

const ESC = '\x1b';

describe('renderViewport', () => {
  test('plain text is padded to the width and ends with a reset', async () => {
    const screen = await screenWith('hi\r\nthere');
    const lines = renderViewport(screen, { top: 0, height: 3, width: 8 });
    expect(lines).toEqual([`hi      ${SGR_RESET}`, `there   ${SGR_RESET}`, `        ${SGR_RESET}`]);
    screen.dispose();
  });

  test('16-colour, 256-colour and truecolor SGR come out as the program drew them', async () => {
    const screen = await screenWith(
      `${ESC}[31mr${ESC}[92mg${ESC}[38;5;1mp${ESC}[38;5;200mq${ESC}[38;2;1;2;3mt${ESC}[44mb${ESC}[48;5;17mB${ESC}[48;2;9;8;7mT${ESC}[0mn`,
    );
    const [line] = renderViewport(screen, { top: 0, height: 1, width: 10 });
    expect(line).toBe(
      `${ESC}[0;31mr${ESC}[0;92mg${ESC}[0;38;5;1mp${ESC}[0;38;5;200mq${ESC}[0;38;2;1;2;3mt` +
        `${ESC}[0;38;2;1;2;3;44mb${ESC}[0;38;2;1;2;3;48;5;17mB${ESC}[0;38;2;1;2;3;48;2;9;8;7mT${SGR_RESET}n ${SGR_RESET}`,
    );
    screen.dispose();
  });

  test('bold, dim, italic, underline, inverse and strikethrough are kept', async () => {
    const screen = await screenWith(`${ESC}[1ma${ESC}[22;2mb${ESC}[22;3mc${ESC}[23;4md${ESC}[24;7me${ESC}[27;9mf${ESC}[0m`);
    const [line] = renderViewport(screen, { top: 0, height: 1, width: 6 });
    expect(line).toBe(`${ESC}[0;1ma${ESC}[0;2mb${ESC}[0;3mc${ESC}[0;4md${ESC}[0;7me${ESC}[0;9mf${SGR_RESET}`);
    screen.dispose();
  });

  test('runs of equal attributes share one SGR', async () => {
    const screen = await screenWith(`${ESC}[1;31mhello${ESC}[0m world`);
    const [line] = renderViewport(screen, { top: 0, height: 1, width: 12 });
    expect(line).toBe(`${ESC}[0;1;31mhello${SGR_RESET} world ${SGR_RESET}`);
    screen.dispose();
  });

  test('a coloured background fills erased cells', async () => {
    const screen = await screenWith(`${ESC}[41m${ESC}[K`, 4, 1);
    const [line] = renderViewport(screen, { top: 0, height: 1, width: 4 });
    expect(line).toBe(`${ESC}[0;41m    ${SGR_RESET}`);
    screen.dispose();
  });

  test('wide characters take two columns and are never split', async () => {
    const screen = await screenWith('a中b');
    expect(renderViewport(screen, { top: 0, height: 1, width: 5 })[0]).toBe(`a中b ${SGR_RESET}`);
    // Cut through the wide character on the right: it becomes a blank.
    expect(renderViewport(screen, { top: 0, height: 1, width: 2 })[0]).toBe(`a ${SGR_RESET}`);
    // Start on its right half: that column is blank.
    expect(renderViewport(screen, { top: 0, height: 1, width: 2, left: 2 })[0]).toBe(` b${SGR_RESET}`);
    screen.dispose();
  });

  test('combining characters stay with their base', async () => {
    const screen = await screenWith('e\u0301x');
    expect(renderViewport(screen, { top: 0, height: 1, width: 3 })[0]).toBe(`e\u0301x ${SGR_RESET}`);
    screen.dispose();
  });

  test('a width wider than the screen is padded with blanks', async () => {
    const screen = await screenWith(`${ESC}[7mab`, 2, 1);
    expect(renderViewport(screen, { top: 0, height: 1, width: 5 })[0]).toBe(`${ESC}[0;7mab${SGR_RESET}   ${SGR_RESET}`);
    screen.dispose();
  });

  test('negative top reaches into scrollback; lines outside the buffer are blank', async () => {
    let text = '';
    for (let i = 0; i < 10; i++) text += `L${i}\r\n`;
    const screen = await screenWith(text, 6, 3);
    // Live screen shows L8, L9 and the empty cursor line.
    expect(renderViewport(screen, { top: 0, height: 2, width: 3 })).toEqual([`L8 ${SGR_RESET}`, `L9 ${SGR_RESET}`]);
    expect(renderViewport(screen, { top: -2, height: 2, width: 3 })).toEqual([`L6 ${SGR_RESET}`, `L7 ${SGR_RESET}`]);
    expect(renderViewport(screen, { top: -100, height: 1, width: 3 })).toEqual([`   ${SGR_RESET}`]);
    expect(renderViewport(screen, { top: 5, height: 1, width: 3 })).toEqual([`   ${SGR_RESET}`]);
    screen.dispose();
  });

  test('reuses the output array it is given', async () => {
    const screen = await screenWith('x');
    const renderer = new ViewportRenderer();
    const out = ['stale', 'stale', 'stale', 'stale'];
    const result = renderer.render(screen, { top: 0, height: 2, width: 1 }, out);
    expect(result).toBe(out);
    expect(out).toEqual([`x${SGR_RESET}`, ` ${SGR_RESET}`]);
    screen.dispose();
  });
});
