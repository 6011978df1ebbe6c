// The page session (src/web/page-session.ts) over a real WebSocket pair (`ws`, the listener's own
// BoundedPageSocket) against a real hub, operator port and row fleet with real ptys: a page hears
// hello and the rows; a viewed row's screen comes first and its output after, and stops when the
// page views nothing; keys typed into an attached row reach its pty and echo back; the page's size
// follows the fleet's rule; a read-only page is refused attaching, typing, resizing and every
// mutating tool at the server; a bad frame gets a sentence.
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { fleetDesk } from '../../../src/app/client-desk.js';
import { operatorPort } from '../../../src/hub/operator-port.js';
import { RowManager } from '../../../src/rows/row-manager.js';
import { RowFleet } from '../../../src/supervisor/row-fleet.js';
import { toDisposable } from '../../../src/util/lifecycle.js';
import { BoundedPageSocket, DEFAULT_PAGE_SOCKET_LIMITS } from '../../../src/web/page-socket.js';
import type { PageToServer, ServerToPage } from '../../../src/web/page-protocol.js';
import { PageSessions } from '../../../src/web/page-session.js';
import type { PageTools, WebIdentity } from '../../../src/web/web-contract.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { startTestHub } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

const CAT = { file: '/bin/cat', args: [] as string[] };

/** Tools that record what reached them (the page session routes; the tools themselves are tested in page-tools.test.ts). */
function recordingTools() {
  const handled: string[] = [];
  const tools: PageTools = {
    mutates: (method) => method === 'row.close',
    handle: async (method) => {
      handled.push(method);
      return { ok: { method } };
    },
    follow: (push) => {
      push({ t: 'push', topic: 'hello-tools', data: 1 });
      return toDisposable(() => undefined);
    },
  };
  return { tools, handled };
}

async function setup() {
  const { paths, hub } = await startTestHub();
  const port = operatorPort(hub.core);
  const rows = new RowManager({
    socketPath: paths.socketPath,
    mintToken: (name) => {
      const r = port.registerRow(name);
      if (!r.ok) throw new Error(r.error.message);
      return r.token;
    },
  });
  const fleet = new RowFleet({ rows, port });
  const desk = fleetDesk(fleet);
  const { tools, handled } = recordingTools();
  const sessions = new PageSessions({ desk, port, tools, workspace: 'ws-test', serverVersion: '0.0.0-test' });
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  const identities: WebIdentity[] = [];
  wss.on('connection', (ws) => {
    const who = identities.shift() ?? { handle: 'operator', readOnly: false };
    const socket = new BoundedPageSocket(ws, DEFAULT_PAGE_SOCKET_LIMITS);
    const session = sessions.open(socket, who);
    socket.onClose(() => session.dispose());
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  deferCleanup('page session', () => {
    wss.close();
    fleet.dispose();
    rows.dispose();
  });
  const open = async (who: WebIdentity = { handle: 'operator', readOnly: false }) => {
    identities.push(who);
    const ws = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`);
    const got: ServerToPage[] = [];
    ws.on('message', (data) => got.push(JSON.parse(String(data)) as ServerToPage));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    deferCleanup('page', () => ws.close());
    const send = (frame: PageToServer | Record<string, unknown>) => ws.send(JSON.stringify(frame));
    /** The row's text as the page would show it: its last screen and the output after it. */
    const textOf = (name: string) => {
      let text = '';
      for (const m of got) {
        if (m.t === 'screen' && m.name === name) text = m.data;
        if (m.t === 'out' && m.name === name) text += m.data;
      }
      return text;
    };
    return { ws, got, send, textOf };
  };
  return { fleet, open, handled };
}

describe('page session', () => {
  it('says hello and lists the rows; a viewed row sends its screen first, then its output, and nothing once it is no longer viewed', async () => {
    const t = await setup();
    t.fleet.add({ name: 'alpha', command: { file: '/bin/sh', args: ['-c', 'printf "first-line\\n"; read x; printf "after-$x\\n"; sleep 30'] } }, { cols: 60, rows: 8 });
    t.fleet.add({ name: 'beta', command: CAT }, { cols: 40, rows: 5 });
    const page = await t.open();
    await waitUntil(() => page.got.find((m) => m.t === 'rows'), { what: 'the rows' });
    expect(page.got[0]).toMatchObject({ t: 'hello', workspace: 'ws-test', readOnly: false, version: 1 });
    const rows = page.got.find((m): m is Extract<ServerToPage, { t: 'rows' }> => m.t === 'rows')!;
    expect(rows.rows.map((r) => r.name)).toEqual(['alpha', 'beta']);
    expect(page.got.some((m) => m.t === 'push' && m.topic === 'hello-tools')).toBe(true);
    await waitUntil(() => t.fleet.get('alpha')!.screen.snapshot().lines.some((l) => l.includes('first-line')), { what: 'alpha printed' });
    page.send({ t: 'view', rows: ['alpha'] });
    const screen = await waitUntil(() => page.got.find((m): m is Extract<ServerToPage, { t: 'screen' }> => m.t === 'screen' && m.name === 'alpha'), { what: 'alpha’s screen' });
    expect(screen).toMatchObject({ cols: 60, rows: 8 });
    expect(screen.data).toContain('first-line');
    // Output after the screen comes as `out`, and only for the viewed row.
    t.fleet.get('alpha')!.write('xyz\r');
    await waitUntil(() => page.textOf('alpha').includes('after-xyz'), { what: 'alpha’s output after its screen' });
    expect(page.got.some((m) => (m.t === 'screen' || m.t === 'out') && m.name === 'beta')).toBe(false);
    // Viewed no more: alpha's output stops. (Frames go in order: beta's first screen, asked for after
    // alpha's output was on its screen, comes after anything alpha would still have sent.)
    page.send({ t: 'view', rows: [] });
    await waitUntil(() => t.fleet.get('alpha')!.screen.snapshot().lines.some((l) => l.includes('after-xyz')), { what: 'alpha settled' });
    const before = page.got.length;
    t.fleet.get('beta')!.write('unseen\r');
    await waitUntil(() => t.fleet.get('beta')!.screen.snapshot().lines.filter((l) => l.includes('unseen')).length === 2, { what: 'beta echoed' });
    page.send({ t: 'view', rows: ['beta'] });
    const betaScreen = await waitUntil(() => page.got.find((m): m is Extract<ServerToPage, { t: 'screen' }> => m.t === 'screen' && m.name === 'beta'), { what: 'beta’s screen' });
    expect(betaScreen.data).toContain('unseen');
    expect(page.got.slice(before).filter((m) => (m.t === 'out' || m.t === 'screen') && m.name === 'alpha')).toEqual([]);
  });

  it('a page that does not read costs a bounded buffer: its rows’ backlog is dropped and a fresh screen sent when it reads again', async () => {
    const t = await setup();
    t.fleet.add({ name: 'flood', command: { file: '/bin/sh', args: ['-c', 'i=0; while [ $i -lt 150000 ]; do echo "flood line $i ................................................"; i=$((i+1)); done; echo flood-done; sleep 30'] } }, { cols: 80, rows: 10 });
    const page = await t.open();
    page.send({ t: 'view', rows: ['flood'] });
    await waitUntil(() => page.got.find((m) => m.t === 'screen'), { what: 'the first screen' });
    // The page stops reading: the server's socket fills, the session holds, the row's backlog overflows.
    const raw = (page.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    raw.pause();
    await waitUntil(() => t.fleet.get('flood')!.screen.snapshot().lines.some((l) => l.includes('flood-done')), { what: 'the flood ended', timeoutMs: 60_000 });
    raw.resume();
    await waitUntil(() => page.textOf('flood').includes('flood-done'), { what: 'the page caught up to the end', timeoutMs: 30_000 });
    expect(page.got.filter((m) => m.t === 'screen' && m.name === 'flood').length).toBeGreaterThanOrEqual(2);
    // Far less than the flood's ~24 MB reached the page.
    const sent = page.got.reduce((n, m) => n + (m.t === 'out' || m.t === 'screen' ? m.data.length : 0), 0);
    expect(sent).toBeLessThan(12_000_000);
  }, 120_000);

  it('keys typed into an attached row reach its pty and echo; the page’s size takes the row once its keys came last', async () => {
    const t = await setup();
    t.fleet.add({ name: 'echo', command: CAT }, { cols: 40, rows: 6 });
    const page = await t.open();
    page.send({ t: 'view', rows: ['echo'] });
    await waitUntil(() => page.got.find((m) => m.t === 'screen'), { what: 'the screen' });
    page.send({ t: 'input', name: 'echo', data: 'nope\r' });
    await waitUntil(() => page.got.find((m) => m.t === 'refused' && m.code === 'NOT_ATTACHED'), { what: 'typing unattached refused' });
    page.send({ t: 'attach', name: 'echo', cols: 70, rows: 12 });
    await waitUntil(() => t.fleet.get('echo')!.cols === 70 && t.fleet.get('echo')!.rows === 12, { what: 'the row takes the attached page’s size' });
    // The resize reaches the page as a fresh screen at the new size.
    await waitUntil(() => page.got.find((m) => m.t === 'screen' && m.cols === 70 && m.rows === 12), { what: 'a screen at 70x12' });
    page.send({ t: 'input', name: 'echo', data: 'typed-in-page\r' });
    await waitUntil(() => t.fleet.get('echo')!.screen.snapshot().lines.filter((l) => l.includes('typed-in-page')).length === 2, { what: 'the pty echoed and cat repeated' });
    await waitUntil(() => page.textOf('echo').split('typed-in-page').length === 3, { what: 'the echo reached the page' });
    expect(t.fleet.sizeOwner).not.toBeNull();
    page.send({ t: 'resize', name: 'echo', cols: 50, rows: 9 });
    await waitUntil(() => t.fleet.get('echo')!.cols === 50, { what: 'a resize from the deciding page applied' });
    page.send({ t: 'attach', name: null });
    await waitUntil(() => t.fleet.attachedRows().size === 0, { what: 'detached' });
  });

  it('a read-only page sees the rows but is refused attaching, typing, resizing and mutating tools, at the server', async () => {
    const t = await setup();
    t.fleet.add({ name: 'guarded', command: CAT }, { cols: 40, rows: 6 });
    const page = await t.open({ handle: 'operator', readOnly: true });
    page.send({ t: 'view', rows: ['guarded'] });
    await waitUntil(() => page.got.find((m) => m.t === 'screen'), { what: 'the read-only page sees the screen' });
    expect(page.got[0]).toMatchObject({ t: 'hello', readOnly: true });
    page.send({ t: 'attach', name: 'guarded', cols: 70, rows: 12 });
    page.send({ t: 'input', name: 'guarded', data: 'forbidden\r' });
    page.send({ t: 'resize', name: 'guarded', cols: 30, rows: 4 });
    page.send({ t: 'req', id: 7, method: 'row.close', params: { name: 'guarded' } });
    page.send({ t: 'req', id: 8, method: 'mail.history', params: {} });
    await waitUntil(() => page.got.filter((m) => m.t === 'refused').length === 3 && page.got.filter((m) => m.t === 'res').length === 2, { what: 'three refusals and two answers' });
    expect(page.got.filter((m) => m.t === 'refused').map((m) => (m as { code: string }).code)).toEqual(['READ_ONLY', 'READ_ONLY', 'READ_ONLY']);
    expect(page.got.find((m) => m.t === 'res' && m.id === 7)).toMatchObject({ error: { code: 'READ_ONLY' } });
    expect(page.got.find((m) => m.t === 'res' && m.id === 8)).toMatchObject({ ok: { method: 'mail.history' } });
    expect(t.handled).toEqual(['mail.history']);
    const row = t.fleet.get('guarded')!;
    // Keys written after the refusals: had the page's been written, they would show before these.
    row.write('marker\r');
    await waitUntil(() => row.screen.snapshot().lines.some((l) => l.includes('marker')), { what: 'the marker echoed' });
    expect(row.screen.snapshot().lines.join('\n')).not.toContain('forbidden');
    expect([row.cols, row.rows]).toEqual([40, 6]);
    expect(t.fleet.attachedRows().size).toBe(0);
  });

  it('a frame of the wrong shape gets a sentence, and the session goes on', async () => {
    const t = await setup();
    t.fleet.add({ name: 'r', command: CAT }, { cols: 40, rows: 6 });
    const page = await t.open();
    page.send({ t: 'input', name: 'r' });
    page.send({ t: 'resize', name: 'r', cols: 0, rows: 5 });
    page.send({ t: 'bogus' });
    await waitUntil(() => page.got.filter((m) => m.t === 'refused').length === 3, { what: 'three refusals' });
    expect(page.got.filter((m) => m.t === 'refused').every((m) => (m as { code: string }).code === 'BAD_FRAME')).toBe(true);
    page.send({ t: 'view', rows: ['r'] });
    await waitUntil(() => page.got.find((m) => m.t === 'screen'), { what: 'still served' });
  });
});
