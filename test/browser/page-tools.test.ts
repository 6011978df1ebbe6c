// The page's tools in headless Debian chromium (playwright-core) against a real workspace server
// (browser-harness.ts: `swb` with real shells, `swb web`): a composer send lands in a row's inbox
// from the operator (the row's own `swb wait` prints it) and its receipts move on the page; mail to
// the operator appears live in the mail view and the notification list; a read-only page's send is
// refused by the server (the page's own socket, its cookie); the sanitizer's hostile corpus and HTML
// payloads, sent as mail and set as a row's title, render inert — no element or script injected.
import { afterEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { HOSTILE_CASES } from '../fixtures/hostile/corpus.js';
import { connectClient } from '../helpers/hub-harness.js';
import { runCleanups } from '../helpers/cleanup.js';
import { waitUntil } from '../helpers/wait-until.js';
import { launchBrowser, openPage, startWebWorkspace } from './browser-harness.js';

afterEach(runCleanups);

/** A row that waits for its mail with its own `swb`, marks it read, shows its inbox, and stays. */
const WAITS_FOR_MAIL = `id=$(swb wait --timeout 120 --json | sed -n 's/.*"id":\\([0-9]*\\).*/\\1/p' | head -n 1); echo "GOT-MAIL-$id"; swb read "$id"; swb inbox --all; exec sh`;

/** The page at `url`, its tools panel open on `tab`. */
async function openTools(browser: Browser, url: string, tab: 'mail' | 'notes' | 'compose' | 'row'): Promise<Page> {
  const { page, problems } = await openPage(browser, url);
  await page.locator('#top button.tools').click();
  await page.locator(`#tools .tools-tab[data-tab="${tab}"]`).click();
  // Nothing the page's CSP refused, no error thrown in the page.
  expect(problems).toEqual([]);
  return page;
}

/** Markup a page that inserted peer text as HTML would turn into live elements and scripts. */
const HTML_PAYLOADS = [
  '<img src=x onerror="window.__pwned=1">',
  '<script>window.__pwned=2</script>',
  '<svg onload="window.__pwned=3"></svg>',
  '"><iframe src="javascript:window.top.__pwned=4"></iframe>',
  "<a href=\"javascript:window.__pwned=5\" id=\"pwn\">click</a><style>body{display:none}</style>",
  '<details open ontoggle="window.__pwned=6">',
];

/** Elements the tools never make themselves: any of them in the panel came from peer text. */
const FOREIGN = 'img, script, svg, iframe, object, embed, style, link, a, details:not(.tools-new-row-box), form[action], video, audio, math, [onerror], [onload], [ontoggle]';

async function injected(page: Page): Promise<{ foreign: number; pwned: unknown; scripts: number }> {
  return page.evaluate((sel) => ({
    foreign: document.querySelector('#tools')!.querySelectorAll(sel).length,
    pwned: (window as unknown as { __pwned?: unknown }).__pwned,
    scripts: document.querySelectorAll('script:not([src="/app.js"])').length,
  }), FOREIGN);
}

describe('the page’s tools in a browser', { timeout: 120_000 }, () => {
  it('a composer send lands in the row’s inbox from the operator, and its receipts move on the page', async () => {
    const ws = await startWebWorkspace({ worker: WAITS_FOR_MAIL });
    const browser = await launchBrowser();
    const page = await openTools(browser, await ws.login(), 'compose');
    const text = page.locator('#tools .tools-composer-text');
    await text.fill('@wor');
    // `@` completion from the rows and peers: the row is offered and Tab takes it.
    await page.locator('#tools .tools-suggestion[data-handle="worker"]').waitFor();
    await text.press('Tab');
    expect(await text.inputValue()).toBe('@worker ');
    await text.pressSequentially('please build');
    await page.locator('#tools .tools-composer-kind').selectOption('task');
    await page.locator('#tools .tools-send').click();
    const receipts = page.locator('#tools .tools-composer-receipts');
    // In the row's inbox, from the operator: the row's own `swb wait` got it (delivered), then read it.
    await receipts.filter({ hasText: '@worker ✓✓ read' }).waitFor({ timeout: 20_000 });
    const id = Number(await receipts.getAttribute('data-message-id'));
    expect(id).toBeGreaterThan(0);
    await ws.terminal.waitForText(new RegExp(`GOT-MAIL-${id}`), { timeoutMs: 10_000 });
    await ws.terminal.waitForText(new RegExp(`#${id}  from operator  task`), { timeoutMs: 10_000 });
    await ws.terminal.waitForText(/ {4}please build/, { timeoutMs: 10_000 });
    // The mail view shows it with its receipt per recipient, moved live.
    await page.locator('#tools .tools-tab[data-tab="mail"]').click();
    await page.locator(`#tools .tools-mail-line[data-id="${id}"]`).click();
    await page.locator('#tools .tools-receipt[data-to="worker"]', { hasText: 'read' }).waitFor();
  });

  it('mail to the operator appears live in the mail view and the notification list', async () => {
    const ws = await startWebWorkspace({ shell: 'exec sh' });
    const browser = await launchBrowser();
    const page = await openTools(browser, await ws.login(), 'mail');
    await page.locator('#tools .tools-mail-list .tools-empty').waitFor();
    const bot = await connectClient(ws.home.paths, { session: 'bot' });
    const sent = await bot.client.request<{ id: number }>('mail.send', { to: ['operator'], text: 'deploy finished\nall green', kind: 'data' });
    const line = page.locator(`#tools .tools-mail-line[data-id="${sent.id}"]`);
    await line.waitFor();
    expect(await line.locator('.tools-mail-preview').textContent()).toBe('deploy finished');
    expect(await line.getAttribute('class')).toContain('is-unread');
    await line.click();
    expect(await page.locator('#tools .tools-mail-text').textContent()).toBe('deploy finished\nall green');
    // Filters: by kind, and unread only; marking it read takes it out of the unread list.
    await page.locator('#tools .tools-mail-kind').selectOption('task');
    await line.waitFor({ state: 'detached' });
    await page.locator('#tools .tools-mail-kind').selectOption('data');
    await page.locator('#tools .tools-mail-unread').check();
    // (The message stays open through the filters.)
    await page.locator('#tools .tools-mail-detail button', { hasText: 'mark read' }).click();
    await line.waitFor({ state: 'detached' });
    // The notification list has the dashboard's note for it.
    await page.locator('#tools .tools-tab[data-tab="notes"]').click();
    await page.locator('#tools .tools-note', { hasText: '@bot → @operator [data] deploy finished (+1 line)' }).waitFor();
  });

  it('a read-only page has no send, and the server refuses its send', async () => {
    const ws = await startWebWorkspace({ worker: 'exec sh' });
    const browser = await launchBrowser();
    const page = await openTools(browser, await ws.login({ readOnly: true }), 'compose');
    await page.locator('#tools .tools-readonly').waitFor();
    expect(await page.locator('#tools .tools-send').isVisible()).toBe(false);
    // The page's own socket (its cookie and page key), asking anyway: refused at the server, nothing sent.
    const answer = await page.evaluate(
      () =>
        new Promise<unknown>((resolve) => {
          const key = encodeURIComponent(localStorage.getItem('swb.pageKey') ?? '');
          const ws = new WebSocket(`ws://${location.host}/ws?pageKey=${key}`);
          ws.onmessage = (e) => {
            const m = JSON.parse(String(e.data));
            if (m.t === 'res' && m.id === 7) resolve(m);
          };
          ws.onopen = () => ws.send(JSON.stringify({ t: 'req', id: 7, method: 'mail.send', params: { to: ['worker'], text: 'from a viewer' } }));
        }),
    );
    expect(answer).toMatchObject({ t: 'res', id: 7, error: { code: 'READ_ONLY' } });
    // Nothing reached the row: the operator's own view of the mail has none.
    const operatorPage = await openTools(browser, await ws.login(), 'mail');
    await operatorPage.locator('#tools .tools-mail-list .tools-empty', { hasText: 'no mail' }).waitFor();
  });

  it('the hostile corpus and HTML payloads, as mail and as a row’s title, render inert', async () => {
    // The row keeps setting its title to each payload in turn (the page sees whichever comes).
    const titles = HTML_PAYLOADS.map((p) => `printf '\\033]0;%s\\007' '${p.replace(/'/g, "'\\''")}'; sleep 0.3`).join('; ');
    const ws = await startWebWorkspace({ titled: `while :; do ${titles}; done` });
    const browser = await launchBrowser();
    const page = await openTools(browser, await ws.login(), 'mail');
    const bot = await connectClient(ws.home.paths, { session: 'bot' });
    const texts = [...HOSTILE_CASES.map((c) => (typeof c.input === 'string' ? c.input : new TextDecoder().decode(c.input))), ...HTML_PAYLOADS];
    const ids: number[] = [];
    for (const text of texts) {
      if (text.trim() === '') continue;
      const r = await bot.client.request<{ id: number }>('mail.send', { to: ['operator'], text: text.slice(0, 8000), kind: 'msg' });
      ids.push(r.id);
    }
    await waitUntil(async () => (await page.locator('#tools .tools-mail-line').count()) === ids.length, { what: 'every message listed', timeoutMs: 15_000 });
    // Open each message in full (its text, its receipts), then the notes and the row tools.
    for (const id of ids) await page.locator(`#tools .tools-mail-line[data-id="${id}"]`).click();
    await page.locator('#tools .tools-tab[data-tab="notes"]').click();
    await waitUntil(async () => (await page.locator('#tools .tools-note').count()) >= ids.length, { what: 'the notes', timeoutMs: 15_000 });
    await page.locator('#tools .tools-tab[data-tab="row"]').click();
    await page.locator('#tools .tools-row-title').waitFor({ timeout: 15_000 });
    expect(HTML_PAYLOADS).toContain(await page.locator('#tools .tools-row-title').textContent());
    await page.locator('#tools .tools-row button', { hasText: 'explain' }).click();
    expect(await injected(page)).toEqual({ foreign: 0, pwned: undefined, scripts: 0 });
    // The payloads are there as text, not as markup.
    await page.locator('#tools .tools-tab[data-tab="mail"]').click();
    // (The last message opened above is still open.)
    expect(await page.locator('#tools .tools-mail-text').textContent()).toBe(HTML_PAYLOADS[HTML_PAYLOADS.length - 1]);
    expect(await injected(page)).toEqual({ foreign: 0, pwned: undefined, scripts: 0 });
  });
});
