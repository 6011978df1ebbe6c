// `swb web` against a real workspace server (issue #32): the URL printed once with a fresh token and
// a QR code, the token (in the URL's fragment) turning into a cookie and a page key; --read-only; --rotate; a non-loopback --bind refused
// without TLS and warned about with --insecure; the config's `web` section serving from the start;
// and no row able to get a token (the operator-token rule), whether it asks as itself or tries the
// operator's token file.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { deferCleanup, runCleanups } from '../helpers/cleanup.js';
import { runSwb, spawnSwb } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitUntil } from '../helpers/wait-until.js';
import { loginWithToken, tokenOfLoginUrl } from '../helpers/web-harness.js';

afterEach(runCleanups);

/** Starts `swb server --config FILE` (no terminal client), then a row `alpha` in it. */
async function startServer(home: TempHome, extra: Record<string, unknown> = {}): Promise<string> {
  const config = join(home.workspace, 'swb.json');
  writeFileSync(config, JSON.stringify(extra));
  const server = spawnSwb(['server', '--config', config], { home });
  await waitUntil(() => existsSync(home.paths.serverSocketPath), { timeoutMs: 15_000, what: 'the server to listen' });
  const added = await runSwb(['new', '--name', 'alpha', '--', 'sh', '-c', 'exec sleep 600'], { home });
  expect(added.status).toBe(0);
  // Stopped properly (its rows end with it) before the harness kills what is left.
  deferCleanup('swb kill-server', async () => {
    if (!server.hasExited()) await runSwb(['kill-server', '--force'], { home });
  });
  return config;
}

/** The row's program's mail identity, from /proc (what an agent in the row has). */
async function rowEnv(home: TempHome): Promise<Record<string, string>> {
  const ls = JSON.parse((await runSwb(['ls', '--json'], { home })).stdout) as { rows: Array<{ name: string; pid: number }> };
  const pid = ls.rows.find((r) => r.name === 'alpha')!.pid;
  const out: Record<string, string> = {};
  for (const v of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const eq = v.indexOf('=');
    const key = v.slice(0, eq);
    if (key === 'SWB_SESSION' || key === 'SWB_TOKEN' || key === 'SWB_SOCKET') out[key] = v.slice(eq + 1);
  }
  return out;
}

describe('swb web', () => {
  test('prints the URL once with a fresh token and a QR code; the token logs a browser in; --read-only; --rotate', async () => {
    const home = createTempHome();
    await startServer(home);
    const r = await runSwb(['web'], { home });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const urls = r.stdout.match(/http:\/\/127\.0\.0\.1:\d+\/login#token=[A-Za-z0-9_-]+/g)!;
    expect(urls).toHaveLength(1);
    expect(r.stdout).toMatch(/[█▀▄]{20}/); // the QR code
    const base = new URL(urls[0]!).origin;
    // The browser fetches /login (the fragment stays with it), whose script POSTs the token.
    expect((await fetch(urls[0]!)).status).toBe(200);
    const login = await loginWithToken(base, tokenOfLoginUrl(urls[0]!));
    const cookie = login.cookie;
    expect((await fetch(`${base}/api/peers`, { headers: login.headers })).status).toBe(200);
    expect((await fetch(`${base}/api/peers`, { headers: { cookie } })).status).toBe(401);
    // A second call: same listener, a different token, both valid.
    const again = JSON.parse((await runSwb(['web', '--json'], { home })).stdout) as { loginUrl: string; url: string; readOnly: boolean };
    expect(new URL(again.url).origin).toBe(base);
    expect(again.loginUrl).not.toBe(urls[0]);
    // View-only: refused send at the server.
    const view = JSON.parse((await runSwb(['web', '--read-only', '--json'], { home })).stdout) as { loginUrl: string; readOnly: boolean };
    expect(view.readOnly).toBe(true);
    const viewToken = tokenOfLoginUrl(view.loginUrl);
    const refused = await fetch(`${base}/api/send`, { method: 'POST', headers: { authorization: `Bearer ${viewToken}`, 'content-type': 'application/json' }, body: '{"to":"alpha","text":"x"}' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.code).toBe('READ_ONLY');
    // Rotate: the cookie and every earlier token stop working.
    const rotated = await runSwb(['web', '--rotate', '--no-qr'], { home });
    expect(rotated.status).toBe(0);
    expect(rotated.stdout).toMatch(/revoked/);
    expect((await fetch(`${base}/api/peers`, { headers: login.headers })).status).toBe(401);
    await expect(loginWithToken(base, tokenOfLoginUrl(urls[0]!))).rejects.toThrow(/401/);
    expect((await fetch(`${base}/api/peers`, { headers: { authorization: `Bearer ${viewToken}` } })).status).toBe(401);
  });

  test("a row's agent gets no token: not as itself, nor with the operator's token file", async () => {
    const home = createTempHome();
    await startServer(home);
    const env = await rowEnv(home);
    const asRow = await runSwb(['web'], { home, env });
    expect(asRow.status).toBe(1);
    expect(asRow.stderr).toMatch(/UNAUTHENTICATED/);
    expect(asRow.stdout).not.toMatch(/token=/);
    // Without its own token it would be the operator (the token file is readable): the hub refuses
    // the operator identity to a process that names one of its rows.
    const { SWB_TOKEN: _t, ...noToken } = env;
    const asOperator = await runSwb(['web'], { home, env: noToken });
    expect(asOperator.status).toBe(1);
    expect(asOperator.stderr).toMatch(/UNAUTHENTICATED/);
    expect(asOperator.stdout).not.toMatch(/token=/);
  });

  test('a non-loopback --bind needs TLS or --insecure, which warns', async () => {
    const home = createTempHome();
    await startServer(home);
    const refused = await runSwb(['web', '--bind', '0.0.0.0'], { home });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/BAD_REQUEST: Serving on 0\.0\.0\.0 \(not loopback\) needs TLS/);
    const insecure = await runSwb(['web', '--bind', '0.0.0.0', '--insecure', '--no-qr'], { home });
    expect(insecure.status).toBe(0);
    expect(insecure.stderr).toMatch(/WARNING: .*without TLS/);
    const usage = await runSwb(['web', '--tls-cert', 'a.pem'], { home });
    expect(usage.status).toBe(2);
  });

  test("the config's web section serves the page from the server's start", async () => {
    const home = createTempHome();
    await startServer(home, { web: { start: true } });
    const log = () => (existsSync(join(home.paths.runDir, 'server.log')) ? readFileSync(join(home.paths.runDir, 'server.log'), 'utf8') : '');
    const url = await waitUntil(() => /web: serving (http:\/\/127\.0\.0\.1:\d+\/)/.exec(log())?.[1], { timeoutMs: 10_000, what: 'the web listener in server.log' });
    expect((await fetch(url)).status).toBe(401);
    // swb web then hands out a token for that same listener.
    const r = JSON.parse((await runSwb(['web', '--json'], { home })).stdout) as { url: string };
    expect(r.url).toBe(url);
  });
});
