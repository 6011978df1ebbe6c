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
import { startTestWeb } from '../../helpers/web-harness.js';

afterEach(runCleanups);

function selfSigned(): { cert: string; key: string } {
  const dir = createTempHome().home;
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', 'key.pem', '-out', 'cert.pem'], { cwd: dir, stdio: 'pipe' });
  return { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
}

function get(url: string, ca: Buffer, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('--tls-cert/--tls-key: HTTPS and WSS, a Secure cookie, HSTS; a non-loopback bind with TLS needs no --insecure', async () => {
  const { cert, key } = selfSigned();
  const ca = readFileSync(cert);
  const web = await startTestWeb();
  const r = await web.serving.web({ tlsCert: cert, tlsKey: key });
  if ('error' in r) throw new Error(r.error.message);
  expect(r.ok.tls).toBe(true);
  expect(r.ok.loginUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/\?token=/);
  const login = await get(r.ok.loginUrl!, ca);
  expect(login.status).toBe(303);
  const setCookie = String(login.headers['set-cookie']);
  expect(setCookie).toMatch(/HttpOnly; SameSite=Strict; Max-Age=\d+; Secure/);
  expect(login.headers['strict-transport-security']).toMatch(/max-age=/);
  const cookie = setCookie.split(';')[0]!;
  const base = new URL(r.ok.url);
  expect((await get(`${base.origin}/api/peers`, ca, { cookie })).status).toBe(200);
  const ws = new WebSocket(`wss://${base.host}/ws`, { ca, headers: { cookie, origin: base.origin } });
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
