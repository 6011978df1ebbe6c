// Federation over TLS, for real: a nats-server that requires TLS and a client certificate signed
// by its CA (mutual TLS, on top of the shipped users and permissions), certificates made by openssl
// for this run, and nodes whose `federation.tls` names their CA, certificate and key — or whose CA
// comes from NODE_EXTRA_CA_CERTS, which the server's node is started without (issue #33).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { FedNode, NatsServer, ok } from '../helpers/federation.js';
import { runSwb } from '../helpers/run-swb.js';
import { waitUntil } from '../helpers/wait-until.js';

interface Pki {
  dir: string;
  ca: string;
  /** A CA nobody here signed with: a server cert it does not vouch for. */
  otherCa: string;
  cert(name: string): { cert: string; key: string };
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'swb-pki-'));
  const ca = (name: string) => {
    openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', `${name}-key.pem`, '-out', `${name}.pem`);
    return join(dir, `${name}.pem`);
  };
  const caFile = ca('swb-test-ca');
  const otherCa = ca('some-other-ca');
  const signed = (name: string, san: string) => {
    openssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`);
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\nextendedKeyUsage=serverAuth,clientAuth\n`);
    openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', 'swb-test-ca.pem', '-CAkey', 'swb-test-ca-key.pem', '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.pem`);
    chmodSync(join(dir, `${name}-key.pem`), 0o600);
    return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}-key.pem`) };
  };
  signed('nats', 'IP:127.0.0.1,DNS:localhost');
  return { dir, ca: caFile, otherCa, cert: (name) => signed(name, `DNS:${name}`) };
}

describe('federation over TLS (mutual, with the shipped users and permissions)', () => {
  let pki: Pki;
  let nats: NatsServer;
  let alpha: FedNode;
  let beta: FedNode;

  beforeAll(async () => {
    pki = makePki();
    nats = await NatsServer.start({
      scheme: 'tls',
      extraConf: `tls {\n  cert_file: "${join(pki.dir, 'nats.pem')}"\n  key_file: "${join(pki.dir, 'nats-key.pem')}"\n  ca_file: "${pki.ca}"\n  verify: true\n  timeout: 2\n}`,
    });
    const tlsFor = (name: string) => ({ ca: pki.ca, ...pki.cert(name) });
    alpha = new FedNode('alpha', nats, { federation: { tls: tlsFor('alpha') } });
    beta = new FedNode('beta', nats, { federation: { tls: tlsFor('beta') } });
    await Promise.all([alpha.start(), beta.start()]);
  });

  afterAll(async () => {
    await Promise.all([alpha?.stop(), beta?.stop()]);
    await runCleanups();
    if (pki) rmSync(pki.dir, { recursive: true, force: true });
  });

  it('mail and its receipts cross between two nodes over tls://', async () => {
    const bob = await beta.session('bob', true);
    const alice = await alpha.session('alice', true);
    const sent = await ok(alice, 'mail.send', { to: ['bob@beta'], text: 'over TLS' });
    const pushed = await waitUntil(() => bob.stray.find((l) => l.method === 'mail.arrived')?.params.message, { timeoutMs: 15_000, what: 'the mail at bob@beta' });
    expect(pushed).toMatchObject({ from: 'alice@alpha', text: 'over TLS' });
    const op = await alpha.operator();
    await waitUntil(async () => (await ok(op, 'receipt.get', { id: sent.id })).recipients[0].state === 'delivered', { timeoutMs: 15_000, what: 'delivered at alpha' });
    const { link } = await ok(op, 'federation.status', {});
    expect(link.state).toBe('up');
  });

  it('a node without a client certificate, or one that does not trust the server\u2019s CA, never gets a link: its mail waits, and status says why', async () => {
    for (const [name, tls, why] of [
      ['gamma', { ca: pki.ca }, /certificate|handshake|tls|closed|TIMEOUT|connection/i],
      ['gamma', { ca: pki.otherCa, ...pki.cert('gamma') }, /certificate|self.signed|verify|issuer/i],
    ] as const) {
      const gamma = new FedNode(name, nats, { federation: { tls } });
      await gamma.start();
      const carol = await gamma.session('carol');
      const sent = await ok(carol, 'mail.send', { to: ['bob@beta'], text: 'should wait' });
      expect(sent.recipients[0]).toMatchObject({ to: 'bob@beta', state: 'accepted' });
      const op = await gamma.operator();
      const status = await waitUntil(async () => {
        const { link } = await ok(op, 'federation.status', {});
        return link.state !== 'up' && link.queued >= 1 && link.problem ? link : null;
      }, { timeoutMs: 15_000, what: `${name} to report its link down with mail queued` });
      expect(status.problem).toMatch(why);
      await gamma.stop();
    }
  });

  it('a CA named only by NODE_EXTRA_CA_CERTS, set aside as a launched server gets it (node never read it at start), still vouches for the NATS server', async () => {
    // As src/client/server-launch.ts launches the server: the setting under its aside name, which
    // the entry puts back into the environment only after node started (bin/swb.ts).
    const trusting = new FedNode('gamma', nats, { federation: { tls: pki.cert('gamma') }, env: { SWB_NODE_EXTRA_CA_CERTS: pki.ca } });
    await trusting.start();
    expect(trusting.proc!.stderr()).not.toMatch(/Ignoring extra certs/);
    const op = await trusting.operator();
    await waitUntil(async () => (await ok(op, 'federation.status', {})).link.state === 'up', { timeoutMs: 15_000, what: 'gamma’s link up' });
    await trusting.stop();
  });

  it('a TLS key that others may read refuses the start, saying so', async () => {
    const delta = pki.cert('delta');
    chmodSync(delta.key, 0o644);
    const node = new FedNode('delta', nats, { federation: { tls: { ca: pki.ca, ...delta } } });
    const r = await runSwb(['hub', '--config', node.configPath], { home: node.home, timeoutMs: 15_000 });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/federation\.tls\.key: .* may be read by others \(mode 644\); chmod 600 it\./);
  });
});
