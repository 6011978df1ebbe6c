// The page in a real browser (headless Debian chromium, playwright-core) against a real workspace
// server whose rows run real shells: every row's text on the page (drawn by xterm.js, under the
// listener's Content-Security-Policy, with nothing refused); keys typed into an attached row reach
// its pty and echo; a read-only page is refused typing at the server (the page's own frames, sent
// past its buttons); the phone viewport's list and its full-screen row with the key bar. The
// desktop and phone screenshots in docs/ are taken here.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';
import { runCleanups } from '../helpers/cleanup.js';
import { runSwb } from '../helpers/run-swb.js';
import { waitUntil } from '../helpers/wait-until.js';
import { launchBrowser, openPage, pageRowText, startWebWorkspace } from './browser-harness.js';

afterEach(runCleanups);

const docs = join(packageRoot(), 'docs');
const ROWS = {
  alpha: 'echo ALPHA-READY; exec sh',
  beta: 'echo BETA-READY; exec sh',
  gamma: "printf 'GAMMA-READY\\n\\033[32mgreen text\\033[0m\\n'; exec sh",
};

describe('the page in a browser', () => {
  it('shows every row’s text, drawn by xterm.js with nothing the CSP refused; keys typed into an attached row reach its pty and echo', async () => {
    const ws = await startWebWorkspace(ROWS);
    const browser = await launchBrowser();
    const { page, problems } = await openPage(browser, await ws.login());
    const frames: string[] = [];
    page.on('websocket', (w) => {
      w.on('framesent', (f) => frames.push(`> ${String(f.payload).slice(0, 120)}`));
      w.on('framereceived', (f) => frames.push(`< ${String(f.payload).slice(0, 120)}`));
      w.on('close', () => frames.push('closed'));
    });
    // The token became a cookie and a page key, and left the address bar: the login page POSTed it,
    // the cookie is HttpOnly (no script sees it), the key sits in this origin's storage.
    expect(page.url()).not.toContain('token=');
    await page.waitForURL((u) => u.pathname === '/');
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate(() => localStorage.getItem('swb.pageKey'))).toMatch(/^[A-Za-z0-9_-]{43}$/);
    for (const [name, ready] of [['alpha', 'ALPHA-READY'], ['beta', 'BETA-READY'], ['gamma', 'GAMMA-READY']] as const) {
      // Painted: the terminal's rows in the DOM hold the text (not only xterm's buffer).
      await waitUntil(async () => ((await page.locator(`.tile[data-row="${name}"] .xterm-rows`).textContent()) ?? '').includes(ready), { what: `${name}'s text painted`, timeoutMs: 15_000 });
      expect(await page.locator(`.tile[data-row="${name}"] .row-head .name`).textContent()).toBe(name);
    }
    // Colors come through (xterm's theme and cell styles reach the page despite the CSP: style-bridge.ts).
    const green = await page.locator('.tile[data-row="gamma"] .xterm-rows span', { hasText: 'green text' }).first().evaluate((el) => getComputedStyle(el).color);
    expect(green).not.toBe(await page.locator('.tile[data-row="gamma"] .xterm-rows').evaluate((el) => getComputedStyle(el).color));
    // Attach (Enter on the focused tile) and type: the shell computes the answer, so the keys reached its pty.
    await page.locator('.tile[data-row="beta"]').click();
    await page.keyboard.press('Enter');
    await page.waitForSelector('.tile[data-row="beta"].attached');
    await page.keyboard.type('echo typed-$((6*7))');
    await page.keyboard.press('Enter');
    await waitUntil(async () => (await pageRowText(page, 'beta')).includes('typed-42'), { what: 'the shell’s answer on the page' });
    expect(ws.terminal.screenText().join('\n')).toBeDefined();
    // Ctrl-C reaches the program too (sh prints a fresh prompt on a new line; the half-typed line is dropped).
    await page.keyboard.type('echo never-run');
    await page.keyboard.press('Control+C');
    await page.keyboard.type('echo after-ctrl-c');
    await page.keyboard.press('Enter');
    await waitUntil(async () => (await pageRowText(page, 'beta')).includes('\nafter-ctrl-c'), { what: 'the line after Ctrl-C ran' }).catch(async (e) => {
      throw new Error(`${e.message}: ${JSON.stringify((await pageRowText(page, 'beta')).trimEnd().slice(-400))}\n${frames.slice(-40).join('\n')}`);
    });
    expect(await pageRowText(page, 'beta')).not.toMatch(/^never-run$/m);
    // Detach (Ctrl-]) and take the desktop screenshot with every row on the board.
    await page.keyboard.press('Control+]');
    await page.waitForSelector('.tile.attached', { state: 'detached' });
    mkdirSync(docs, { recursive: true });
    await page.screenshot({ path: join(docs, 'web-desktop.png') });
    expect(problems).toEqual([]);
  }, 120_000);

  it('a read-only page sees the rows, and its keys are refused at the server', async () => {
    const ws = await startWebWorkspace({ guarded: 'echo GUARDED-READY; exec sh' });
    const browser = await launchBrowser();
    const { page } = await openPage(browser, await ws.login({ readOnly: true }));
    await waitUntil(async () => (await pageRowText(page, 'guarded')).includes('GUARDED-READY'), { what: 'the row seen read-only' });
    await waitUntil(async () => ((await page.locator('#top .ro-badge').textContent()) ?? '') === 'read-only', { what: 'the read-only badge' });
    // The page offers no attaching...
    await page.locator('.tile[data-row="guarded"]').click();
    await page.keyboard.press('Enter');
    expect(await page.locator('.tile.attached').count()).toBe(0);
    // ...and the server refuses the frames themselves, sent on a socket of the page's own (its cookie and page key).
    const refused = await page.evaluate(
      () =>
        new Promise<string[]>((resolve) => {
          const socket = new WebSocket(`ws://${location.host}/ws?pageKey=${encodeURIComponent(localStorage.getItem('swb.pageKey') ?? '')}`);
          const codes: string[] = [];
          socket.onmessage = (e) => {
            const m = JSON.parse(String(e.data)) as { t: string; code?: string };
            if (m.t === 'hello') {
              socket.send(JSON.stringify({ t: 'attach', name: 'guarded', cols: 80, rows: 20 }));
              socket.send(JSON.stringify({ t: 'input', name: 'guarded', data: 'echo forbidden-$((2+3))\r' }));
            }
            if (m.t === 'refused') codes.push(m.code!);
            if (codes.length === 2) resolve(codes);
          };
        }),
    );
    expect(refused).toEqual(['READ_ONLY', 'READ_ONLY']);
    // The operator's page: the row never ran it (a line typed after shows, the refused one never does).
    const operator = await openPage(browser, await ws.login());
    await operator.page.locator('.tile[data-row="guarded"]').click();
    await operator.page.keyboard.press('Enter');
    await operator.page.waitForSelector('.tile[data-row="guarded"].attached');
    await operator.page.keyboard.type('echo marker-$((1+1))');
    await operator.page.keyboard.press('Enter');
    await waitUntil(async () => (await pageRowText(operator.page, 'guarded')).includes('marker-2'), { what: 'the operator’s line ran' });
    expect(await pageRowText(operator.page, 'guarded')).not.toContain('forbidden');
  }, 120_000);

  it('after `swb web --rotate` an open page is signed out: it goes to its login page and says why, instead of reconnecting forever', async () => {
    const ws = await startWebWorkspace({ kept: 'echo KEPT-READY; exec sh' });
    const browser = await launchBrowser();
    const { page } = await openPage(browser, await ws.login());
    await waitUntil(async () => (await pageRowText(page, 'kept')).includes('KEPT-READY'), { what: 'the row on the page' });
    const rotated = await runSwb(['web', '--rotate', '--json', '--no-qr'], { home: ws.home, timeoutMs: 20_000 });
    expect(rotated.status).toBe(0);
    await page.waitForURL((u) => u.pathname === '/login', { timeout: 15_000 });
    await waitUntil(async () => /revoked/.test((await page.locator('#status').textContent()) ?? ''), { what: 'the login page saying the access was revoked' });
    // The stale key is gone: it could only send the page round again.
    expect(await page.evaluate(() => localStorage.getItem('swb.pageKey'))).toBeNull();
  }, 120_000);

  it('on a phone (390×844) rows are a list — state, unread, last line — and one opens full screen with the key bar', async () => {
    const ws = await startWebWorkspace({ ...ROWS, delta: "printf 'DELTA first\\n\\nDELTA-LAST-LINE\\n'; exec sleep 600" });
    const browser = await launchBrowser();
    const { page, problems } = await openPage(browser, await ws.login(), { width: 390, height: 844 }, true);
    await page.waitForSelector('#phone:not([hidden]) .phone-item[data-row="delta"]');
    await waitUntil(async () => ((await page.locator('.phone-item[data-row="delta"] .last-line').textContent()) ?? '') === 'DELTA-LAST-LINE', { what: 'delta’s last non-empty line in the list' });
    expect(await page.locator('.phone-item').count()).toBe(4);
    expect(await page.locator('.phone-item[data-row="delta"] .state').textContent()).toMatch(/^(unknown|busy|idle|waiting)$/);
    expect(await page.locator('#board').isHidden()).toBe(true);
    mkdirSync(docs, { recursive: true });
    await page.screenshot({ path: join(docs, 'web-phone-list.png') });
    // Open a row: full screen, attached, with the key bar; keys typed and the bar's Enter reach its shell.
    await page.locator('.phone-item[data-row="alpha"]').tap();
    await page.waitForSelector('.phone-row:not([hidden]) .key-bar');
    expect(await page.locator('.key-bar button').allTextContents()).toEqual(['Esc', 'Tab', '^C', '←', '↑', '↓', '→', '⏎']);
    await page.locator('.phone-row .term').tap();
    await page.keyboard.type('echo phone-$((3*3))');
    await page.locator('.key-bar button[title="Enter"]').tap();
    await waitUntil(async () => (await pageRowText(page, 'alpha')).includes('phone-9'), { what: 'the phone’s keys ran in the row' });
    await page.screenshot({ path: join(docs, 'web-phone-row.png') });
    // Back to the list.
    await page.locator('.phone-bar .back').tap();
    await page.waitForSelector('.phone-list:not([hidden])');
    expect(problems).toEqual([]);
  }, 120_000);
});
