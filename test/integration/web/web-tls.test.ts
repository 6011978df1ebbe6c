// The listener over TLS (issue #32): --tls-cert/--tls-key serve HTTPS and WSS, the cookie gets
// Secure and the answers Strict-Transport-Security; a non-loopback bind with TLS needs no --insecure.
// The certificate is made by openssl for this test (self-signed for 127.0.0.1), and the client
// trusts exactly it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { runCleanups, deferCleanup } from '../../helpers/cleanup.js';
import { createTempHome } from '../../helpers/temp-home.js';
import { startTestWeb, tokenOfLoginUrl, withPageKey } from '../../helpers/web-harness.js';

afterEach(runCleanups);

function selfSigned(): { cert: string; key: string } {
  const dir = createTempHome().home;
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', 'key.pem', '-out', 'cert.pem'], { cwd: dir, stdio: 'pipe' });
  return { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
}

function get(url: string, ca: Buffer, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers, method: body === undefined ? 'GET' : 'POST' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('--tls-cert/--tls-key: HTTPS and WSS, a Secure cookie, HSTS; a non-loopback bind with TLS needs no --insecure', async () => {
  const { cert, key } = selfSigned();
  const ca = readFileSync(cert);
  const web = await startTestWeb();
  const r = await web.serving.web({ tlsCert: cert, tlsKey: key });
  if ('error' in r) throw new Error(r.error.message);
  expect(r.ok.tls).toBe(true);
  expect(r.ok.loginUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/login#token=/);
  const base = new URL(r.ok.url);
  const login = await get(`${base.origin}/login`, ca, { 'content-type': 'application/json', origin: base.origin }, JSON.stringify({ token: tokenOfLoginUrl(r.ok.loginUrl!) }));
  expect(login.status).toBe(200);
  const setCookie = String(login.headers['set-cookie']);
  expect(setCookie).toMatch(/HttpOnly; SameSite=Strict; Max-Age=\d+; Secure/);
  expect(login.headers['strict-transport-security']).toMatch(/max-age=/);
  const cookie = setCookie.split(';')[0]!;
  const { pageKey } = JSON.parse(login.body) as { pageKey: string };
  expect((await get(`${base.origin}/api/peers`, ca, { cookie, 'x-swb-page-key': pageKey })).status).toBe(200);
  // Under TLS the page's origin is https: a plain-http Origin of the same host is another origin.
  expect((await get(`${base.origin}/api/peers`, ca, { cookie, 'x-swb-page-key': pageKey, origin: `http://${base.host}` })).status).toBe(403);
  const ws = new WebSocket(withPageKey(`wss://${base.host}/ws`, pageKey), { ca, headers: { cookie, origin: base.origin } });
  deferCleanup('wss', () => ws.terminate());
  const hello = await new Promise<any>((resolve, reject) => {
    ws.once('message', (d) => resolve(JSON.parse(String(d))));
    ws.once('error', reject);
  });
  expect(hello.t).toBe('hello');
  // The old plain-HTTP address is gone: the listener moved to TLS.
  await expect(fetch(`${web.base}/`)).rejects.toThrow();
  // With TLS, another address needs no --insecure and warns of nothing.
  const wide = await web.serving.web({ bind: '0.0.0.0' });
  expect('ok' in wide && wide.ok.warnings).toEqual([]);
  expect('ok' in wide && wide.ok.tls).toBe(true);
});
