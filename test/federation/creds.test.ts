// Federation with NATS decentralized auth, for real: a nats-server in operator mode (it trusts an
// operator JWT; a memory resolver is preloaded with an SWB account that has JetStream), and nodes
// whose only NATS credentials are `federation.credentials`, a .creds file (a user JWT and its nkey
// seed) whose permissions are the shipped least-privilege ones for that node. The operator, the
// accounts and the users are made by test/helpers/nats-jwt.ts (no nsc here).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, createUser } from '@nats-io/nkeys';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { FedNode, NatsServer, ok } from '../helpers/federation.js';
import { NatsOperator, shippedPermissions } from '../helpers/nats-jwt.js';
import { runSwb } from '../helpers/run-swb.js';
import { waitUntil } from '../helpers/wait-until.js';

describe('federation with .creds files (NATS operator mode, permissions in the user JWTs)', () => {
  const op = new NatsOperator();
  let keys: string;
  let nats: NatsServer;
  let alpha: FedNode;
  let beta: FedNode;
  /** A .creds file for `node`'s NATS user (the shipped permissions), in this run's key dir. */
  const creds = (node: string, opts: Parameters<NatsOperator['writeCreds']>[3] = {}, file = `${node}.creds`) =>
    op.writeCreds(join(keys, file), node, shippedPermissions(node), opts);

  beforeAll(async () => {
    keys = mkdtempSync(join(tmpdir(), 'swb-creds-'));
    nats = await NatsServer.start({ auth: (dir) => op.serverConf(dir) });
    // Operator mode only: no user or password of the shipped config is left to fall back on.
    expect(readFileSync(nats.conf, 'utf8')).not.toMatch(/^\s*(accounts \{|users:|user:|password:)/m);
    alpha = new FedNode('alpha', nats, { credentials: creds('alpha') });
    beta = new FedNode('beta', nats, { credentials: creds('beta') });
    await Promise.all([alpha.start(), beta.start()]);
  });

  afterAll(async () => {
    await Promise.all([alpha?.stop(), beta?.stop()]);
    await runCleanups();
    if (keys) rmSync(keys, { recursive: true, force: true });
  });

  it('mail and its receipts cross between two nodes that connect with only their .creds files', async () => {
    expect(JSON.parse(readFileSync(alpha.configPath, 'utf8')).federation).toEqual({ url: nats.url, node: 'alpha', credentials: join(keys, 'alpha.creds') });
    const bob = await beta.session('bob', true);
    const alice = await alpha.session('alice', true);
    const sent = await ok(alice, 'mail.send', { to: ['bob@beta'], text: 'signed with an nkey' });
    const pushed = await waitUntil(() => bob.stray.find((l) => l.method === 'mail.arrived')?.params.message, { timeoutMs: 15_000, what: 'the mail at bob@beta' });
    expect(pushed).toMatchObject({ from: 'alice@alpha', text: 'signed with an nkey' });
    const opAlpha = await alpha.operator();
    await waitUntil(async () => (await ok(opAlpha, 'receipt.get', { id: sent.id })).recipients[0].state === 'delivered', { timeoutMs: 15_000, what: 'delivered at alpha' });
    const { link } = await ok(opAlpha, 'federation.status', {});
    expect(link).toMatchObject({ state: 'up', queued: 0 });
  });

  it('a user JWT from an account the operator does not know, or a seed that is not the user\u2019s, is refused: mail waits, and swb status says why', async () => {
    for (const [file, opts] of [
      ['gamma-unknown-account.creds', { signer: createAccount() }],
      ['gamma-wrong-seed.creds', { seed: createUser().getSeed() }],
    ] as const) {
      const gamma = new FedNode('gamma', nats, { credentials: creds('gamma', opts, file) });
      await gamma.start();
      const carol = await gamma.session('carol');
      const sent = await ok(carol, 'mail.send', { to: ['bob@beta'], text: 'should wait' });
      expect(sent.recipients[0]).toMatchObject({ to: 'bob@beta', state: 'accepted' });
      const opGamma = await gamma.operator();
      const link = await waitUntil(async () => {
        const { link } = await ok(opGamma, 'federation.status', {});
        return link.state !== 'up' && link.queued >= 1 && link.problem ? link : null;
      }, { timeoutMs: 15_000, what: `gamma (${file}) to report its link down with mail queued` });
      expect(link.problem).toMatch(/authorization violation/i);
      const status = await runSwb(['status'], { home: gamma.home });
      expect(status.status, status.stderr).toBe(0);
      expect(status.stdout).toMatch(/federation: node gamma on nats:\/\/127\.0\.0\.1:\d+: queued: link (down|not yet up) since \S+ \(.*authorization violation.*\); 1 message and receipts queued/i);
      await gamma.stop();
    }
  });

  it('a .creds file that others may read refuses the start, saying so', async () => {
    const node = new FedNode('delta', nats, { credentials: creds('delta', { mode: 0o644 }) });
    const r = await runSwb(['hub', '--config', node.configPath], { home: node.home, timeoutMs: 15_000 });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/federation\.credentials: .*delta\.creds may be read by others \(mode 644\); chmod 600 it\./);
  });

  it('the user JWT\u2019s permissions hold: alpha\u2019s creds cannot publish as beta, pull beta\u2019s mail or read beta\u2019s inbox', async () => {
    const nc: NatsConnection = await connect({
      servers: nats.url,
      authenticator: credsAuthenticator(readFileSync(join(keys, 'alpha.creds'))),
      inboxPrefix: '_INBOX_swb_alpha',
    });
    try {
      const errors: string[] = [];
      void (async () => {
        for await (const s of nc.status()) if (s.type === 'error') errors.push(s.error.message);
      })();
      // What alpha may do, it can: the account has JetStream, and alpha may ask about it.
      const info = JSON.parse((await nc.request('$JS.API.INFO', '', { timeout: 5000 })).string());
      expect(info).toMatchObject({ type: 'io.nats.jetstream.api.v1.account_info_response' });
      expect(info.error).toBeUndefined();
      nc.publish('swb.beta.alpha.m', 'forged mail from beta');
      nc.publish('$JS.API.CONSUMER.MSG.NEXT.SWB_MAIL.swb-beta', '{"batch":1}');
      nc.subscribe('_INBOX_swb_beta.>');
      for (const denied of [
        /Permissions Violation for Publish to "swb\.beta\.alpha\.m"/,
        /Permissions Violation for Publish to "\$JS\.API\.CONSUMER\.MSG\.NEXT\.SWB_MAIL\.swb-beta"/,
        /Permissions Violation for Subscription to "_INBOX_swb_beta\.>"/,
      ]) {
        await waitUntil(() => errors.some((e) => denied.test(e)), { timeoutMs: 5000, what: `the server to answer ${denied}` });
      }
    } finally {
      await nc.close();
    }
  });
});
