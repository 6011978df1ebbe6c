// The browser listener's security, tested from outside with plain fetch and a real WebSocket
// (issue #32): no credential, a wrong one, an expired or rotated cookie → 401 and nothing else; the
// token becomes a cookie and a page key, and leaves the URL; the cookie without its key (what a row's
// dev server on another port of localhost receives) and the key without the cookie → 401; Host and
// Origin checked (DNS rebinding, cross-site WebSocket hijacking, another port's page); the security headers on every answer; static files by a fixed table; frames
// bounded in size and rate; a view-only token reaches the page service as readOnly; non-loopback
// without TLS refused; tokens kept only as hashes in a 0600 file.
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../../helpers/cleanup.js';
import { cookieOf, frameWhere, loginWithToken, openSocket, startTestWeb, tokenOfLoginUrl, withPageKey } from '../../helpers/web-harness.js';
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

/** A POST with exactly these headers (Host included); resolves with the status. */
function postRaw(base: string, path: string, headers: Record<string, string>, body: string): Promise<number> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, method: 'POST', setHost: !('host' in headers) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function staticDir(): string {
  const home = createTempHome();
  const dir = join(home.home, 'web');
  mkdirSync(join(dir, 'icons'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>swb</title><script src="/main.js"></script>');
  writeFileSync(join(dir, 'main.js'), 'console.log(1)');
  writeFileSync(join(dir, 'login.html'), '<!doctype html><title>swb: signing in</title><script type="module" src="/login.js"></script>');
  writeFileSync(join(dir, 'login.js'), 'console.log(2)');
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

  test('swb web prints /login#token=: the login page, public, POSTs the token and gets an HttpOnly, SameSite=Strict cookie with an expiry and a page key', async () => {
    const web = await startTestWeb({ staticDir: staticDir() });
    const r = await web.serving.web({});
    if ('error' in r) throw new Error(r.error.message);
    // The token rides in the fragment, which no browser sends to a server.
    expect(r.ok.loginUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login#token=[A-Za-z0-9_-]{43}$/);
    const token = tokenOfLoginUrl(r.ok.loginUrl!);
    const page = await fetch(`${web.base}/login`);
    expect(page.status).toBe(200);
    expect(page.headers.get('set-cookie')).toBeNull();
    expect(await page.text()).toContain('src="/login.js"');
    expect((await fetch(`${web.base}/login.js`)).status).toBe(200);
    const res = await fetch(`${web.base}/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: web.base }, body: JSON.stringify({ token }) });
    expect(res.status).toBe(200);
    const line = res.headers.get('set-cookie')!;
    expect(line).toMatch(/^swb_web=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800$/);
    expect(line).not.toContain(token);
    const answer = (await res.json()) as { pageKey: string; readOnly: boolean };
    expect(answer.pageKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(answer.readOnly).toBe(false);
    expect(line).not.toContain(answer.pageKey);
    const cookie = cookieOf(res);
    // The page's files open on the cookie (a navigation carries no header); the data needs the key too.
    const shell = await fetch(`${web.base}/`, { headers: { cookie } });
    expect(shell.status).toBe(200);
    expect(await shell.text()).toContain('<title>swb</title>');
    expect((await fetch(`${web.base}/api/peers`, { headers: { cookie, 'x-swb-page-key': answer.pageKey } })).status).toBe(200);
    // A wrong token, a token-less body, or a body that is not JSON: no cookie.
    for (const [body, type, status] of [[JSON.stringify({ token: 'wrong' }), 'application/json', 401], ['{}', 'application/json', 401], [`token=${token}`, 'application/x-www-form-urlencoded', 400]] as const) {
      const bad = await fetch(`${web.base}/login`, { method: 'POST', headers: { 'content-type': type }, body });
      expect(bad.status, body).toBe(status);
      expect(bad.headers.get('set-cookie')).toBeNull();
    }
  });

  test('an old URL (/?token= or /login?token=) is sent to the login page with the token in the fragment; no cookie yet', async () => {
    const web = await startTestWeb({ staticDir: staticDir() });
    const token = await web.token();
    for (const path of [`/?token=${token}`, `/login?token=${token}`]) {
      const res = await fetch(`${web.base}${path}`, { redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`/login#token=${token}`);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  test('the cookie without its page key (what a dev server on another localhost port receives) → 401 on HTTP and WS; the key without the cookie → 401; both → OK', async () => {
    const web = await startTestWeb();
    const login = await web.login();
    const other = await web.login();
    const ws = web.base.replace('http', 'ws');
    const unauthorized = { error: { code: 'UNAUTHENTICATED', message: 'Unauthorized.' } };
    // The cookie replayed with no Origin (curl), no key.
    const cookieOnly = await fetch(`${web.base}/api/peers`, { headers: { cookie: login.cookie } });
    expect(cookieOnly.status).toBe(401);
    expect(await cookieOnly.json()).toEqual(unauthorized);
    const send = await fetch(`${web.base}/api/send`, { method: 'POST', headers: { cookie: login.cookie, 'content-type': 'application/json' }, body: '{"to":"operator","text":"as the operator"}' });
    expect(send.status).toBe(401);
    expect(await openSocket(`${ws}/ws`, { cookie: login.cookie })).toEqual({ refused: 401 });
    expect(await openSocket(`${ws}/api/ws`, { cookie: login.cookie })).toEqual({ refused: 401 });
    // The key alone, and another login's key with this cookie.
    expect((await fetch(`${web.base}/api/peers`, { headers: { 'x-swb-page-key': login.pageKey } })).status).toBe(401);
    expect((await fetch(`${web.base}/api/peers`, { headers: { cookie: login.cookie, 'x-swb-page-key': other.pageKey } })).status).toBe(401);
    expect(await openSocket(withPageKey(`${ws}/ws`, login), { origin: web.base })).toEqual({ refused: 401 });
    expect(await openSocket(withPageKey(`${ws}/ws`, other), { cookie: login.cookie, origin: web.base })).toEqual({ refused: 401 });
    expect(web.pages).toHaveLength(0);
    // Both: in.
    expect((await fetch(`${web.base}/api/peers`, { headers: login.headers })).status).toBe(200);
    const page = await openSocket(withPageKey(`${ws}/ws`, login), { cookie: login.cookie, origin: web.base });
    expect('ws' in page).toBe(true);
    const events = await openSocket(withPageKey(`${ws}/api/ws`, login), { cookie: login.cookie, origin: web.base });
    expect('ws' in events).toBe(true);
  });

  test('tokens and cookies are kept only as hashes, in a 0600 file in the runtime dir', async () => {
    const web = await startTestWeb();
    const token = await web.token();
    const cookie = await web.login();
    const file = join(web.paths.runDir, 'web-tokens.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(cookie.cookie.split('=')[1]!);
    expect(text).not.toContain(cookie.pageKey);
    expect(text).toMatch(/"hash":"[0-9a-f]{64}"/);
  });

  test('rotate revokes every token and cookie, and closes the open pages', async () => {
    const web = await startTestWeb();
    const oldToken = await web.token();
    const cookie = await web.login();
    const opened = await openSocket(withPageKey(`${web.base.replace('http', 'ws')}/ws`, cookie), { cookie: cookie.cookie, origin: web.base });
    expect('ws' in opened).toBe(true);
    // A row's own event stream rests on its SWB_TOKEN, which rotating the web credentials leaves alone.
    const row = web.hub.core.sessions.registerRow('alpha');
    if (!row.ok) throw new Error(row.error.message);
    const rowEvents = await openSocket(`${web.base.replace('http', 'ws')}/api/ws`, { authorization: `Bearer ${row.token}` });
    if (!('ws' in rowEvents)) throw new Error('refused');
    await frameWhere(rowEvents.frames, (f) => f.subscribed, 'the row subscribed');
    const r = await web.serving.web({ rotate: true });
    expect('ok' in r && r.ok.rotated).toBe(true);
    expect((await fetch(`${web.base}/`, { headers: { cookie: cookie.cookie } })).status).toBe(401);
    expect((await fetch(`${web.base}/api/peers`, { headers: cookie.headers })).status).toBe(401);
    expect((await fetch(`${web.base}/?token=${oldToken}`, { redirect: 'manual' })).status).toBe(401);
    await expect(loginWithToken(web.base, oldToken)).rejects.toThrow(/401/);
    await waitUntil(() => web.pages[0]?.closed, { what: 'the open page to be closed' });
    expect(rowEvents.ws.readyState).toBe(rowEvents.ws.OPEN);
    // The fresh token works.
    const fresh = tokenOfLoginUrl((r as { ok: { loginUrl: string } }).ok.loginUrl);
    expect((await fetch(`${web.base}/?token=${fresh}`, { redirect: 'manual' })).status).toBe(303);
    expect((await fetch(`${web.base}/api/peers`, { headers: (await loginWithToken(web.base, fresh)).headers })).status).toBe(200);
  });

  test('an expired cookie → 401, on requests and on the WebSocket', async () => {
    let now = Date.now();
    const web = await startTestWeb({ settings: { cookieHours: 1 }, now: () => now });
    const login = await web.login();
    const cookie = login.cookie;
    expect((await fetch(`${web.base}/api/peers`, { headers: login.headers })).status).toBe(200);
    now += 3600_000 - 1000;
    expect((await fetch(`${web.base}/api/peers`, { headers: login.headers })).status).toBe(200);
    now += 2000;
    const expired = await fetch(`${web.base}/api/peers`, { headers: login.headers });
    expect(expired.status).toBe(401);
    expect(await expired.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'Unauthorized.' } });
    expect((await fetch(`${web.base}/`, { headers: { cookie } })).status).toBe(401);
    expect(await openSocket(withPageKey(`${web.base.replace('http', 'ws')}/ws`, login), { cookie, origin: web.base })).toEqual({ refused: 401 });
  });
});

describe('web listener: Host, Origin and headers', () => {
  test('a rebinding Host is refused; loopback names on any port (an SSH forward) are not', async () => {
    const web = await startTestWeb();
    const cookie = (await web.login()).headers;
    const port = new URL(web.base).port;
    expect((await rawGet(web.base, '/api/peers', { host: `evil.example:${port}`, ...cookie })).status).toBe(421);
    expect((await rawGet(web.base, '/api/peers', { host: `127.0.0.1.nip.io:${port}`, ...cookie })).status).toBe(421);
    expect((await rawGet(web.base, '/api/peers', { ...cookie })).status).toBe(400); // no Host at all (HTTP/1.1 requires one)
    expect((await rawGet(web.base, '/api/peers', { host: `127.0.0.1:${port}`, ...cookie })).status).toBe(200);
    expect((await rawGet(web.base, '/api/peers', { host: 'localhost:8080', ...cookie })).status).toBe(200);
  });

  test('a foreign Origin is refused on /ws and /api/ws, and on a request', async () => {
    const web = await startTestWeb();
    const login = await web.login();
    const cookie = login.cookie;
    const ws = web.base.replace('http', 'ws');
    expect(await openSocket(withPageKey(`${ws}/ws`, login), { cookie, origin: 'https://evil.example' })).toEqual({ refused: 403 });
    expect(await openSocket(withPageKey(`${ws}/api/ws`, login), { cookie, origin: 'https://evil.example' })).toEqual({ refused: 403 });
    expect(await openSocket(withPageKey(`${ws}/ws`, login), { cookie, origin: 'null' })).toEqual({ refused: 403 });
    expect(web.pages).toHaveLength(0);
    const post = await fetch(`${web.base}/api/send`, { method: 'POST', headers: { ...login.headers, origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{"to":"x","text":"hi"}' });
    expect(post.status).toBe(403);
    // The page's own origin is fine.
    const own = await openSocket(withPageKey(`${ws}/ws`, login), { cookie, origin: web.base });
    expect('ws' in own).toBe(true);
  });

  test('an Origin of another port of localhost (a row\'s dev server) is refused while Host is this listener; an SSH forward\'s own origin is not', async () => {
    const web = await startTestWeb();
    const login = await web.login();
    const port = Number(new URL(web.base).port);
    const otherPort = port === 3000 ? 3001 : 3000;
    const url = withPageKey(`ws://127.0.0.1:${port}/ws`, login);
    for (const [host, origin] of [
      [`localhost:${port}`, `http://localhost:${otherPort}`],
      [`127.0.0.1:${port}`, `http://127.0.0.1:${otherPort}`],
      [`127.0.0.1:${port}`, `http://localhost:${port}`],
      [`localhost:${port}`, `http://localhost`],
    ] as const) {
      expect(await openSocket(url, { host, origin, cookie: login.cookie }), origin).toEqual({ refused: 403 });
      expect(await openSocket(withPageKey(`ws://127.0.0.1:${port}/api/ws`, login), { host, origin, cookie: login.cookie }), origin).toEqual({ refused: 403 });
      const post = await postRaw(web.base, '/api/send', { host, origin, ...login.headers, 'content-type': 'application/json' }, '{"to":"operator","text":"from another port"}');
      expect(post, origin).toBe(403);
      expect(await postRaw(web.base, '/login', { host, origin, 'content-type': 'application/json' }, JSON.stringify({ token: await web.token() })), origin).toBe(403);
    }
    expect(web.pages).toHaveLength(0);
    // Host and Origin naming the same forward (ssh -L 8080:127.0.0.1:PORT): this page's own origin.
    expect('ws' in (await openSocket(url, { host: 'localhost:8080', origin: 'http://localhost:8080', cookie: login.cookie }))).toBe(true);
    expect(await postRaw(web.base, '/api/read', { host: 'localhost:8080', origin: 'http://localhost:8080', ...login.headers, 'content-type': 'application/json' }, '{"ids":[]}')).not.toBe(403);
  });

  test('no cookie on the WebSocket → 401', async () => {
    const web = await startTestWeb();
    const ws = web.base.replace('http', 'ws');
    expect(await openSocket(withPageKey(`${ws}/ws`, (await web.login()).pageKey), { origin: web.base })).toEqual({ refused: 401 });
    expect(await openSocket(`${ws}/ws`, { origin: web.base })).toEqual({ refused: 401 });
    expect(await openSocket(`${ws}/ws`, { origin: web.base, cookie: 'swb_web=forged' })).toEqual({ refused: 401 });
    expect(await openSocket(`${ws}/ws`, { origin: web.base, authorization: `Bearer ${await web.token()}` })).toEqual({ refused: 401 });
  });

  test('every answer carries the CSP (no inline script or style, frame-ancestors none), nosniff and no-referrer', async () => {
    const web = await startTestWeb({ staticDir: staticDir() });
    const login = await web.login();
    for (const res of [await fetch(`${web.base}/`), await fetch(`${web.base}/`, { headers: { cookie: login.cookie } }), await fetch(`${web.base}/api/peers`, { headers: login.headers }), await fetch(`${web.base}/login`)]) {
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
    const cookie = (await web.login()).cookie;
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
    const fullLogin = await web.login();
    const viewLogin = await web.login(true);
    const full = await openSocket(withPageKey(`${ws}/ws`, fullLogin), { cookie: fullLogin.cookie, origin: web.base });
    const view = await openSocket(withPageKey(`${ws}/ws`, viewLogin), { cookie: viewLogin.cookie, origin: web.base });
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
    const login = await web.login();
    const cookie = login.cookie;
    const closeOf = async (send: (s: import('ws').WebSocket) => void): Promise<number> => {
      const o = await openSocket(withPageKey(`${ws}/ws`, login), { cookie, origin: web.base });
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
    const ok = await openSocket(withPageKey(`${ws}/ws`, login), { cookie, origin: web.base });
    if (!('ws' in ok)) throw new Error('refused');
    ok.ws.send(JSON.stringify({ t: 'view', rows: ['a'] }));
    await frameWhere(ok.frames, (f) => f.t === 'push' && f.data?.t === 'view', 'the echo');
  });

  test('a page that does not read is dropped, not waited for', async () => {
    const web = await startTestWeb({ limits: { maxBufferedBytes: 64 * 1024 } });
    const ws = web.base.replace('http', 'ws');
    const login = await web.login();
    const o = await openSocket(withPageKey(`${ws}/ws`, login), { cookie: login.cookie, origin: web.base });
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
