// The browser listener's security, tested from outside with plain fetch and a real WebSocket
// (issue #32): no credential, a wrong one, an expired or rotated cookie → 401 and nothing else; the
// token becomes a cookie and leaves the URL; Host and Origin checked (DNS rebinding, cross-site
// WebSocket hijacking); the security headers on every answer; static files by a fixed table; frames
// bounded in size and rate; a view-only token reaches the page service as readOnly; non-loopback
// without TLS refused; tokens kept only as hashes in a 0600 file.
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../../helpers/cleanup.js';
import { cookieOf, frameWhere, openSocket, startTestWeb } from '../../helpers/web-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { createTempHome } from '../../helpers/temp-home.js';

afterEach(runCleanups);

/** A GET with exactly these headers (fetch will not let a test set Host). */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, headers, method: 'GET', setHost: 'host' in headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

function staticDir(): string {
  const home = createTempHome();
  const dir = join(home.home, 'web');
  mkdirSync(join(dir, 'icons'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>swb</title><script src="/main.js"></script>');
  writeFileSync(join(dir, 'main.js'), 'console.log(1)');
  writeFileSync(join(dir, 'icons', 'icon-192.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  writeFileSync(join(dir, 'notes.txt'), 'no content type for this');
  writeFileSync(join(home.home, 'secret.txt'), 'SECRET');
  symlinkSync(join(home.home, 'secret.txt'), join(dir, 'linked.js'));
  return dir;
}

describe('web listener: credentials', () => {
  test('no token, a wrong token, a made-up cookie → 401 and nothing else said', async () => {
    const web = await startTestWeb();
    for (const [path, headers] of [
      ['/', {}],
      ['/?token=wrong', {}],
      ['/login?token=', {}],
      ['/main.js', { cookie: 'swb_web=forged' }],
    ] as const) {
      const res = await fetch(`${web.base}${path}`, { headers, redirect: 'manual' });
      expect(res.status, path).toBe(401);
      expect(await res.text()).toBe('Unauthorized');
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const api = await fetch(`${web.base}/api/inbox`, { headers: { authorization: 'Bearer nope' } });
    expect(api.status).toBe(401);
    expect(await api.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'Unauthorized.' } });
  });

  test('the token becomes an HttpOnly, SameSite=Strict cookie with an expiry, and the redirect strips it from the URL', async () => {
    const web = await startTestWeb({ staticDir: staticDir() });
    const token = await web.token();
    for (const path of [`/?token=${token}`, `/login?token=${token}`]) {
      const res = await fetch(`${web.base}${path}`, { redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/');
      const line = res.headers.get('set-cookie')!;
      expect(line).toMatch(/^swb_web=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800$/);
      expect(line).not.toContain(token);
      const page = await fetch(`${web.base}/`, { headers: { cookie: cookieOf(res) } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>swb</title>');
    }
  });

  test('tokens and cookies are kept only as hashes, in a 0600 file in the runtime dir', async () => {
    const web = await startTestWeb();
    const token = await web.token();
    const cookie = await web.login();
    const file = join(web.paths.runDir, 'web-tokens.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(cookie.split('=')[1]!);
    expect(text).toMatch(/"hash":"[0-9a-f]{64}"/);
  });

  test('rotate revokes every token and cookie, and closes the open pages', async () => {
    const web = await startTestWeb();
    const oldToken = await web.token();
    const cookie = await web.login();
    const opened = await openSocket(`${web.base.replace('http', 'ws')}/ws`, { cookie, origin: web.base });
    expect('ws' in opened).toBe(true);
    // A row's own event stream rests on its SWB_TOKEN, which rotating the web credentials leaves alone.
    const row = web.hub.core.sessions.registerRow('alpha');
    if (!row.ok) throw new Error(row.error.message);
    const rowEvents = await openSocket(`${web.base.replace('http', 'ws')}/api/ws`, { authorization: `Bearer ${row.token}` });
    if (!('ws' in rowEvents)) throw new Error('refused');
    await frameWhere(rowEvents.frames, (f) => f.subscribed, 'the row subscribed');
    const r = await web.serving.web({ rotate: true });
    expect('ok' in r && r.ok.rotated).toBe(true);
    expect((await fetch(`${web.base}/`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${web.base}/?token=${oldToken}`, { redirect: 'manual' })).status).toBe(401);
    await waitUntil(() => web.pages[0]?.closed, { what: 'the open page to be closed' });
    expect(rowEvents.ws.readyState).toBe(rowEvents.ws.OPEN);
    // The fresh token works.
    const fresh = new URL((r as { ok: { loginUrl: string } }).ok.loginUrl).searchParams.get('token')!;
    expect((await fetch(`${web.base}/?token=${fresh}`, { redirect: 'manual' })).status).toBe(303);
  });

  test('an expired cookie → 401, on requests and on the WebSocket', async () => {
    let now = Date.now();
    const web = await startTestWeb({ settings: { cookieHours: 1 }, now: () => now });
    const cookie = await web.login();
    expect((await fetch(`${web.base}/api/peers`, { headers: { cookie } })).status).toBe(200);
    now += 3600_000 - 1000;
    expect((await fetch(`${web.base}/api/peers`, { headers: { cookie } })).status).toBe(200);
    now += 2000;
    const expired = await fetch(`${web.base}/api/peers`, { headers: { cookie } });
    expect(expired.status).toBe(401);
    expect(await expired.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'Unauthorized.' } });
    expect((await fetch(`${web.base}/`, { headers: { cookie } })).status).toBe(401);
    expect(await openSocket(`${web.base.replace('http', 'ws')}/ws`, { cookie, origin: web.base })).toEqual({ refused: 401 });
  });
});

describe('web listener: Host, Origin and headers', () => {
  test('a rebinding Host is refused; loopback names on any port (an SSH forward) are not', async () => {
    const web = await startTestWeb();
    const cookie = await web.login();
    const port = new URL(web.base).port;
    expect((await rawGet(web.base, '/api/peers', { host: `evil.example:${port}`, cookie })).status).toBe(421);
    expect((await rawGet(web.base, '/api/peers', { host: `127.0.0.1.nip.io:${port}`, cookie })).status).toBe(421);
    expect((await rawGet(web.base, '/api/peers', { cookie })).status).toBe(400); // no Host at all (HTTP/1.1 requires one)
    expect((await rawGet(web.base, '/api/peers', { host: `127.0.0.1:${port}`, cookie })).status).toBe(200);
    expect((await rawGet(web.base, '/api/peers', { host: 'localhost:8080', cookie })).status).toBe(200);
  });

  test('a foreign Origin is refused on /ws and /api/ws, and on a request', async () => {
    const web = await startTestWeb();
    const cookie = await web.login();
    const ws = web.base.replace('http', 'ws');
    expect(await openSocket(`${ws}/ws`, { cookie, origin: 'https://evil.example' })).toEqual({ refused: 403 });
    expect(await openSocket(`${ws}/api/ws`, { cookie, origin: 'https://evil.example' })).toEqual({ refused: 403 });
    expect(await openSocket(`${ws}/ws`, { cookie, origin: 'null' })).toEqual({ refused: 403 });
    expect(web.pages).toHaveLength(0);
    const post = await fetch(`${web.base}/api/send`, { method: 'POST', headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{"to":"x","text":"hi"}' });
    expect(post.status).toBe(403);
    // The page's own origin is fine.
    const own = await openSocket(`${ws}/ws`, { cookie, origin: web.base });
    expect('ws' in own).toBe(true);
  });

  test('no cookie on the WebSocket → 401', async () => {
    const web = await startTestWeb();
    const ws = web.base.replace('http', 'ws');
    expect(await openSocket(`${ws}/ws`, { origin: web.base })).toEqual({ refused: 401 });
    expect(await openSocket(`${ws}/ws`, { origin: web.base, cookie: 'swb_web=forged' })).toEqual({ refused: 401 });
    expect(await openSocket(`${ws}/ws`, { origin: web.base, authorization: `Bearer ${await web.token()}` })).toEqual({ refused: 401 });
  });

  test('every answer carries the CSP (no inline script or style, frame-ancestors none), nosniff and no-referrer', async () => {
    const web = await startTestWeb({ staticDir: staticDir() });
    const cookie = await web.login();
    for (const res of [await fetch(`${web.base}/`), await fetch(`${web.base}/`, { headers: { cookie } }), await fetch(`${web.base}/api/peers`, { headers: { cookie } })]) {
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });
});

describe('web listener: static files', () => {
  test('serves the table with the right content types; traversal, listings, links and unknown types find nothing', async () => {
    const web = await startTestWeb({ staticDir: staticDir() });
    const cookie = await web.login();
    const get = (path: string) => rawGet(web.base, path, { host: new URL(web.base).host, cookie });
    expect((await get('/')).headers['content-type']).toBe('text/html; charset=utf-8');
    expect((await get('/main.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await get('/icons/icon-192.png')).headers['content-type']).toBe('image/png');
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/icons/..%2f..%2fsecret.txt', '/icons/', '/icons', '/notes.txt', '/linked.js', '/..%5csecret.txt', '//etc/passwd', '/index.html/']) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      expect(r.body).not.toContain('SECRET');
    }
  });
});

describe('web listener: the page socket', () => {
  test('the page service gets who the credential is: the operator, or a view-only operator', async () => {
    const web = await startTestWeb();
    const ws = web.base.replace('http', 'ws');
    const full = await openSocket(`${ws}/ws`, { cookie: await web.login(), origin: web.base });
    const view = await openSocket(`${ws}/ws`, { cookie: await web.login(true), origin: web.base });
    expect('ws' in full && 'ws' in view).toBe(true);
    await waitUntil(() => web.pages.length === 2, { what: 'two pages' });
    expect(web.pages.map((p) => p.who)).toEqual([
      { handle: 'operator', readOnly: false },
      { handle: 'operator', readOnly: true },
    ]);
    if ('ws' in view) {
      const hello = await frameWhere<{ readOnly: boolean }>(view.frames, (f) => f.t === 'hello', 'hello');
      expect(hello.readOnly).toBe(true);
    }
  });

  test('a frame over the size cap, a binary frame, non-JSON, or a flood closes the socket', async () => {
    const web = await startTestWeb({ limits: { maxFrameBytes: 1024, framesPerSecond: 20 } });
    const ws = web.base.replace('http', 'ws');
    const cookie = await web.login();
    const closeOf = async (send: (s: import('ws').WebSocket) => void): Promise<number> => {
      const o = await openSocket(`${ws}/ws`, { cookie, origin: web.base });
      if (!('ws' in o)) throw new Error('refused');
      const closed = new Promise<number>((resolve) => o.ws.once('close', (code) => resolve(code)));
      send(o.ws);
      return closed;
    };
    expect(await closeOf((s) => s.send(JSON.stringify({ t: 'input', name: 'a', data: 'x'.repeat(2000) })))).toBe(1009);
    expect(await closeOf((s) => s.send(Buffer.from([1, 2, 3]), { binary: true }))).toBe(1003);
    expect(await closeOf((s) => s.send('not json'))).toBe(1003);
    expect(await closeOf((s) => { for (let i = 0; i < 200; i++) s.send('{"t":"view","rows":[]}'); })).toBe(1008);
    // A frame within the limits reaches the page service.
    const ok = await openSocket(`${ws}/ws`, { cookie, origin: web.base });
    if (!('ws' in ok)) throw new Error('refused');
    ok.ws.send(JSON.stringify({ t: 'view', rows: ['a'] }));
    await frameWhere(ok.frames, (f) => f.t === 'push' && f.data?.t === 'view', 'the echo');
  });

  test('a page that does not read is dropped, not waited for', async () => {
    const web = await startTestWeb({ limits: { maxBufferedBytes: 64 * 1024 } });
    const ws = web.base.replace('http', 'ws');
    const o = await openSocket(`${ws}/ws`, { cookie: await web.login(), origin: web.base });
    if (!('ws' in o)) throw new Error('refused');
    await waitUntil(() => web.pages.length === 1, { what: 'the page' });
    // Stop reading on the client side: the kernel buffers fill, then the server's queue grows.
    (o.ws as unknown as { _socket: import('node:net').Socket })._socket.pause();
    const page = web.pages[0]!;
    const chunk = { t: 'out', name: 'a', data: 'y'.repeat(16 * 1024) } as const;
    let refused = false;
    for (let i = 0; i < 10_000 && !refused; i++) refused = !page.socket.send(chunk);
    expect(refused).toBe(true);
    await waitUntil(() => page.closed, { what: 'the slow page to be closed' });
  });
});

describe('web listener: where it may listen', () => {
  test('anything but loopback needs TLS or --insecure (which is warned about)', async () => {
    const web = await startTestWeb();
    const refused = await web.serving.web({ bind: '0.0.0.0' });
    expect('error' in refused && refused.error.code).toBe('BAD_REQUEST');
    expect('error' in refused && refused.error.message).toMatch(/needs TLS .*--insecure/);
    // The listener it had still serves.
    expect((await fetch(`${web.base}/`)).status).toBe(401);
    const insecure = await web.serving.web({ bind: '0.0.0.0', insecure: true });
    expect('ok' in insecure && insecure.ok.warnings.join(' ')).toMatch(/WARNING: .*without TLS/);
    expect('ok' in insecure && insecure.ok.bind).toBe('0.0.0.0');
  });
});
