#!/usr/bin/env node
// npm run bench:web [-- --quick] [--flood-mb=N] [--reps=N] [--echo=N]
//
// The browser client beside its terminal counterpart, in the same run, on the same server (issue #32).
// One workspace server with 9 rows: `e` waits on input (`stty raw -echo; exec cat`), f1..f8 flood
// on demand. Chromium (Debian's, headless, playwright-core) opens the page at 2560x1600 so every
// row's tile is on screen (all 9 viewed).
//   flood  the 8 rows `cat` N MB of SGR-coloured text each (lib/render/workloads.mjs), released
//          together at a FIFO barrier; measured once with one terminal client (swb's thin client in a
//          pty, this process reading it) and no page, once with one browser page and no terminal
//          client (detached), alternating, --reps times each. Server CPU from the release to every
//          row's DONE seen by that client (terminal: in its output; page: in the page's terminals),
//          median of each; the ratio page/terminal (goal ≤ 1.2x). The bytes the page's WebSocket
//          received during a flood (frames' payloads) beside the bytes the rows wrote.
//   echo   a keystroke into row `e`, attached: terminal — written into the client's pty until it
//          shows in its output (lib/render/echo.mjs); page — from the key's keydown in the page to
//          xterm.js's render that shows it (measured in the page, performance.now()); p50/p99 and
//          the p50 ratio page/terminal (goal ≤ 2x).
//   load   a fresh tab (cookie already set) from navigation start to every row's last line painted
//          in its tile (the DOM rows of its xterm.js), 8 flood rows' DONE lines; median of 5 (goal ≤ 1 s).
// Needs `npm run build` first and Debian's chromium (node test/browser/run.mjs installs it).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { cpuMeter, bestCpuS, loadAverage } from './lib/render/proc.mjs';
import { PtyClient, sleep } from './lib/render/pty-client.mjs';
import { COLS, ROWS, startSwb, swbCommand } from './lib/render/systems.mjs';
import { Barrier, printMarker, shq, writeColouredText } from './lib/render/workloads.mjs';
import { latencyStats, sampleEcho } from './lib/render/echo.mjs';
import { startEchoFloor } from './lib/web/echo-floor.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const option = (name, fallback) => Number(argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const quick = argv.includes('--quick');
const FLOOD_MB = option('flood-mb', quick ? 1 : 3);
const REPS = option('reps', quick ? 1 : 3);
const ECHO = option('echo', quick ? 40 : 150);
const FLOOD_ROWS = 8;
const DETACH_ROW = '\x1c'; // Ctrl-\ (the dashboard's detach from an attached row)
const DETACH_CLIENT = 'd';

const chromiumPath = [process.env.SWB_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
if (!chromiumPath) {
  process.stderr.write('bench:web needs chromium (apt-get install -y chromium, or node test/browser/run.mjs)\n');
  process.exit(1);
}
const swbBin = join(root, 'dist', 'bin', 'swb.js');
if (!existsSync(swbBin) || !existsSync(join(root, 'dist', 'web', 'app.js'))) {
  process.stderr.write('bench:web: run `npm run build` first\n');
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'swb-bench-web-'));
const ctx = { dir, swbBin };
const text = join(dir, 'flood.txt');
const { bytes: floodBytes } = writeColouredText(text, FLOOD_MB * 1024 * 1024);
const reps = 2 * REPS;
const barriers = Array.from({ length: reps }, (_, r) => new Barrier(dir, FLOOD_ROWS, `r${r + 1}`));
// Each flood row waits at its barrier, cats the text, prints DONE-<rep>-<id>, and again for every rep.
const floodRow = (id) => {
  const steps = barriers.map((b, r) => `read _ < ${shq(b.paths[id - 1])}; cat ${shq(text)}; printf '%s-%s-%s\\n' DONE ${r + 1} ${id}`).join('; ');
  return `${printMarker('WAIT', id)}; ${steps}; exec sleep 1000000`;
};
const rows = [{ name: 'e', cmd: `${printMarker('READY', 'e')}; stty raw -echo; exec cat` }, ...Array.from({ length: FLOOD_ROWS }, (_, i) => ({ name: `f${i + 1}`, cmd: floodRow(i + 1) }))];

let drawn;
const swb = await startSwb(ctx, rows, { onClient: (c) => (drawn = c.waitForMarkers(['READY-e', ...Array.from({ length: FLOOD_ROWS }, (_, i) => `WAIT-${i + 1}`)], 30_000)) });
const swbRun = (args) => {
  const c = swbCommand(ctx, args);
  const r = spawnSync(c.file, c.args, { env: swb.env, cwd: swb.home, encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) throw new Error(`swb ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};
const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
let client = swb.client;
const results = { terminal: [], page: [], pageBytes: [] };
try {
  await drawn;
  await client.settle(300, 3000);
  const login = JSON.parse(swbRun(['web', '--json', '--no-qr'])).loginUrl;
  const context = await browser.newContext({ viewport: { width: 2560, height: 1600 } });

  const openPage = async () => {
    const page = await context.newPage();
    const frames = { bytes: 0 };
    page.on('websocket', (ws) => ws.on('framereceived', (f) => (frames.bytes += typeof f.payload === 'string' ? Buffer.byteLength(f.payload) : f.payload.length)));
    await page.goto(login);
    await page.waitForFunction(() => (window.swbPage?.model.rows.length ?? 0) === 9);
    return { page, frames };
  };
  const pageHas = (page, markers) =>
    page.evaluate((ms) => ms.every((m) => { const [n, s] = m.split('\u0000'); const p = window.swbPage; return p.model.hasTerm(n) && p.model.term(n).text().includes(s); }), markers);

  // Floods, alternating: terminal client (no page), then page (terminal client detached).
  let pageOpen = null;
  for (let rep = 1; rep <= reps; rep++) {
    const viaPage = rep % 2 === 0;
    const barrier = barriers[rep - 1];
    const markers = Array.from({ length: FLOOD_ROWS }, (_, i) => `DONE-${rep}-${i + 1}`);
    if (viaPage) {
      client.write(DETACH_CLIENT);
      await client.stop('SIGTERM', 5000).catch(() => undefined);
      pageOpen = await openPage();
      await sleep(1000);
    } else if (rep > 1) {
      client = new PtyClient({ ...swbCommand(ctx, ['attach']), env: swb.env, cwd: swb.home, cols: COLS, rows: ROWS });
      await client.waitForText('enter attach', 20_000);
      await client.settle(500, 5000);
    }
    await barrier.ready(20_000);
    const done = viaPage ? null : client.waitForMarkers(markers, 120_000);
    const bytesBefore = pageOpen?.frames.bytes ?? 0;
    const meter = cpuMeter([swb.serverPid]);
    barrier.release();
    if (viaPage) {
      const deadline = performance.now() + 120_000;
      while (!(await pageHas(pageOpen.page, markers.map((m, i) => `f${i + 1}\u0000${m}`)))) {
        if (performance.now() > deadline) throw new Error('the page never showed every DONE');
        await sleep(20);
      }
    } else await done;
    const m = meter();
    const cpuS = bestCpuS(m);
    if (viaPage) {
      results.page.push({ cpuS, wallS: m.wallS });
      results.pageBytes.push(pageOpen.frames.bytes - bytesBefore);
      await pageOpen.page.close();
      pageOpen = null;
    } else results.terminal.push({ cpuS, wallS: m.wallS });
    process.stdout.write(`flood ${rep}: ${viaPage ? 'page    ' : 'terminal'} server CPU ${cpuS.toFixed(2)} s, wall ${m.wallS.toFixed(2)} s${viaPage ? `, page received ${(results.pageBytes.at(-1) / 1e6).toFixed(1)} MB` : ''}\n`);
  }

  // Echo: the terminal client (attached to row e, the first and focused row), then the page.
  if (!client || client.exitInfo) {
    client = new PtyClient({ ...swbCommand(ctx, ['attach']), env: swb.env, cwd: swb.home, cols: COLS, rows: ROWS });
    await client.waitForText('enter attach', 20_000);
  }
  await client.settle(500, 5000);
  client.write('\r');
  await client.settle(300, 3000);
  const [terminalEcho] = await sampleEcho([client], { warmup: 10, samples: ECHO });
  client.write(DETACH_ROW);
  await client.settle(300, 3000);
  const { page } = await openPage();
  await page.locator('.tile[data-row="e"]').click();
  await page.keyboard.press('Enter');
  await page.waitForSelector('.tile[data-row="e"].attached');
  await sleep(500);
  const pageEchoStats = await measurePageEcho(page, 'swb');
  const { parsed: pageParsed, painted: pageEcho } = pageEchoStats;
  await page.keyboard.press('Control+]');
  await page.close();

  // The floor: a bare ws ↔ node-pty cat relay into the same xterm.js setup (what any browser terminal pays here).
  const floor = await startEchoFloor();
  let floorEcho;
  try {
    const fp = await context.newPage();
    await fp.goto(floor.url);
    await fp.waitForFunction(() => window.floorReady === true);
    await fp.locator('.xterm-screen').click();
    await fp.evaluate(() => window.floorTerm.focus());
    await sleep(300);
    floorEcho = await measurePageEcho(fp, 'floor');
    await fp.close();
  } finally {
    await floor.stop();
  }
  const ratio = (a, b) => `${(a.p50 / b.p50).toFixed(2)}x`;
  process.stdout.write(`page echo: keydown → echo parsed by xterm.js p50 ${pageParsed.p50.toFixed(2)} ms; → painted p50 ${pageEcho.p50.toFixed(2)} ms\n`);
  process.stdout.write(`floor echo (bare ws ↔ node-pty cat, same xterm.js): parsed p50 ${floorEcho.parsed.p50.toFixed(2)} ms; painted p50 ${floorEcho.painted.p50.toFixed(2)} ms\n`);

  // Page load to every row painted.
  const loads = [];
  const base = `${new URL(login).origin}/`;
  for (let i = 0; i < 5; i++) {
    const p = await context.newPage();
    await p.goto(base);
    const wantedMarks = Array.from({ length: FLOOD_ROWS }, (_, k) => [`f${k + 1}`, `DONE-${reps}-${k + 1}`]);
    const at = await p.waitForFunction((marks) => {
      const painted = marks.every(([n, s]) => (document.querySelector(`.tile[data-row="${n}"] .xterm-rows`)?.textContent ?? '').includes(s));
      return painted ? performance.now() : false;
    }, wantedMarks, { polling: 'raf', timeout: 30_000 });
    loads.push(await at.jsonValue());
    if (i === 0) {
      const marks = await p.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, Math.round(m.startTime)])));
      const nav = await p.evaluate(() => Math.round(performance.getEntriesByType('navigation')[0]?.responseEnd ?? 0));
      process.stdout.write(`page load (first): html ${nav} ms, script running ${marks['swb-boot']} ms, server's hello ${marks['swb-hello']} ms, rows ${marks['swb-rows']} ms, first screen ${marks['swb-first-screen']} ms, every screen ${marks['swb-screens']} ms, every row painted ${Math.round(loads[0])} ms\n`);
    }
    await p.close();
  }
  loads.sort((a, b) => a - b);
  await context.close();

  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
  const tCpu = median(results.terminal.map((r) => r.cpuS));
  const pCpu = median(results.page.map((r) => r.cpuS));
  const written = FLOOD_ROWS * floodBytes;
  const pageBytes = median(results.pageBytes);
  const out = [
    '',
    `bench:web — ${FLOOD_ROWS} flood rows × ${(floodBytes / 1e6).toFixed(1)} MB, ${REPS} rep(s) each way; load average ${loadAverage()}`,
    `flood server CPU: terminal client ${tCpu.toFixed(2)} s, browser page ${pCpu.toFixed(2)} s → ratio ${(pCpu / tCpu).toFixed(2)}x (goal ≤ 1.2x)`,
    `bytes to the page per flood: ${(pageBytes / 1e6).toFixed(2)} MB of the ${(written / 1e6).toFixed(1)} MB the rows wrote (${((100 * pageBytes) / written).toFixed(0)}%)`,
    `echo p50/p99: terminal ${terminalEcho.p50.toFixed(2)}/${terminalEcho.p99.toFixed(2)} ms, page ${pageEcho.p50.toFixed(2)}/${pageEcho.p99.toFixed(2)} ms (n=${pageEcho.n}) → p50 ratio ${(pageEcho.p50 / terminalEcho.p50).toFixed(2)}x (issue's goal ≤ 2x: below the browser's floor, see the README's bench notes)`,
    `echo floor (bare ws ↔ node-pty cat into the same xterm.js) p50/p99: parsed ${floorEcho.parsed.p50.toFixed(2)}/${floorEcho.parsed.p99.toFixed(2)} ms, painted ${floorEcho.painted.p50.toFixed(2)}/${floorEcho.painted.p99.toFixed(2)} ms`,
    `echo p50 ratios — parsed: page/terminal ${ratio(pageParsed, terminalEcho)}, page/floor ${ratio(pageParsed, floorEcho.parsed)} (goal ≤ 2x the floor); painted: page/terminal ${ratio(pageEcho, terminalEcho)}, page/floor ${ratio(pageEcho, floorEcho.painted)}`,
    `page load to every row painted (8 rows): median ${loads[2].toFixed(0)} ms (all: ${loads.map((l) => l.toFixed(0)).join(', ')}; goal ≤ 1000 ms)`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
} finally {
  await browser.close().catch(() => undefined);
  for (const b of barriers) b.close();
  if (client !== swb.client) {
    await client.stop('SIGTERM', 3000).catch(() => undefined);
    client.dispose();
  }
  await swb.stop().catch(() => swb.killNow());
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Keystrokes into a page's terminal (`which`: 'swb', row e of swb's page; 'floor', the floor's
 * terminal) and, measured in the page, from the key's keydown (captured, before xterm.js sees it)
 * to xterm.js having parsed the echo (onWriteParsed) and to the render whose screen shows it.
 */
async function measurePageEcho(page, which) {
  await page.evaluate((w) => {
    const term = w === 'swb' ? window.swbPage.model.term('e').terminal : window.floorTerm;
    window.__echoTerm = term;
    window.__echo = { pending: null, samples: [], parsed: [] };
    term.onWriteParsed(() => {
      const p = window.__echo.pending;
      if (p && p.t0 !== undefined && p.parsedAt === undefined) {
        const b = term.buffer.active;
        if (b.cursorX === p.x + 1) p.parsedAt = performance.now();
      }
    });
    document.addEventListener('keydown', (e) => { if (window.__echo.pending) window.__echo.pending.t0 = e.timeStamp; }, true);
    term.onRender(() => {
      const p = window.__echo.pending;
      if (!p || p.t0 === undefined) return;
      const b = term.buffer.active;
      const cell = b.getLine(b.baseY + b.cursorY)?.getCell(b.cursorX - 1)?.getChars();
      if (b.cursorX === p.x + 1 && cell === p.ch) {
        window.__echo.samples.push(performance.now() - p.t0);
        window.__echo.parsed.push((p.parsedAt ?? performance.now()) - p.t0);
        window.__echo.pending = null;
        p.resolve();
      }
    });
  }, which);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i < 10 + ECHO; i++) {
    const ch = letters[i % 26];
    const seen = page.evaluate((c) => new Promise((resolve) => {
      const b = window.__echoTerm.buffer.active;
      window.__echo.pending = { ch: c, x: b.cursorX, resolve };
      setTimeout(resolve, 1000);
    }), ch);
    await page.keyboard.press(ch);
    await seen;
    if (i % 40 === 39) {
      await page.keyboard.press('Enter');
      await sleep(50);
    }
    await sleep(4 + Math.random() * 6);
  }
  const { samples, parsed } = await page.evaluate(() => window.__echo);
  return { painted: latencyStats(samples.slice(10)), parsed: latencyStats(parsed.slice(10)) };
}
