// Mail across machines, for real: a nats-server with JetStream under the shipped least-privilege
// config, and swb hubs as nodes alpha, beta and gamma (each its own SWB_HOME and store).
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { FedNode, ok, twoNodesForThisFile } from '../helpers/federation.js';
import { waitUntil } from '../helpers/wait-until.js';
import { runSwb } from '../helpers/run-swb.js';

// Everything started here (nats-server, hubs, sessions, temp dirs) lives for the whole file.
const world = twoNodesForThisFile();


async function receipt(node: FedNode, id: number): Promise<any> {
  const op = await node.operator();
  const r = await ok(op, 'receipt.get', { id });
  op.destroy();
  return r;
}

describe('mail between two nodes', () => {
  it('alice@alpha writes to bob@beta; bob reads and replies; the receipts come back to alpha', async () => {
    const bob = await world.beta.session('bob', true);
    const alice = await world.alpha.session('alice', true);
    const sent = await ok(alice, 'mail.send', { to: ['bob@beta'], text: 'build the docs please' });
    expect(sent.recipients).toEqual([expect.objectContaining({ to: 'bob@beta', state: 'accepted' })]);

    // It reaches bob pushed, from alice@alpha.
    const pushed = await waitUntil(() => bob.stray.find((l) => l.method === 'mail.arrived')?.params.message, { timeoutMs: 10_000, what: 'the mail pushed to bob' });
    expect(pushed).toMatchObject({ from: 'alice@alpha', to: ['bob'], text: 'build the docs please' });
    // Delivered to a live session: alpha hears it.
    await waitUntil(async () => (await receipt(world.alpha, sent.id)).recipients[0].state === 'delivered', { timeoutMs: 10_000, what: 'delivered at alpha' });

    await ok(bob, 'mail.read', { ids: [pushed.id] });
    await waitUntil(async () => (await receipt(world.alpha, sent.id)).recipients[0].state === 'read', { timeoutMs: 10_000, what: 'read at alpha' });

    const reply = await ok(bob, 'mail.send', { to: ['alice@alpha'], text: 'done', replyTo: pushed.id });
    expect(reply.recipients[0]).toMatchObject({ to: 'alice@alpha' });
    const back = await waitUntil(() => alice.stray.find((l) => l.method === 'mail.arrived' && l.params.message.text === 'done')?.params.message, {
      timeoutMs: 10_000,
      what: 'the reply at alice',
    });
    // The reply is threaded on alpha's own message, and alpha's receipt says replied.
    expect(back).toMatchObject({ from: 'bob@beta', replyTo: sent.id });
    await waitUntil(async () => (await receipt(world.alpha, sent.id)).recipients[0].state === 'replied', { timeoutMs: 10_000, what: 'replied at alpha' });
    // And beta hears that alice got the reply (delivered to her live session).
    await waitUntil(async () => ['delivered', 'read', 'replied'].includes((await receipt(world.beta, reply.id)).recipients[0].state), { timeoutMs: 10_000, what: 'reply delivered at beta' });
  });

  it('presence: alpha lists beta’s sessions with their node, online, and their age', async () => {
    const carol = await world.beta.session('carol');
    const op = await world.alpha.operator();
    const peers = await waitUntil(
      async () => {
        const { peers } = await ok(op, 'peers.list', {});
        return peers.find((p: any) => p.handle === 'carol@beta' && p.online) ? peers : null;
      },
      { timeoutMs: 10_000, what: 'carol@beta online at alpha' },
    );
    expect(peers.find((p: any) => p.handle === 'carol@beta')).toMatchObject({ role: 'remote', node: 'beta', online: true, ageMs: expect.any(Number) });
    carol.destroy();
    await waitUntil(
      async () => {
        const { peers } = await ok(op, 'peers.list', {});
        return peers.find((p: any) => p.handle === 'carol@beta' && !p.online);
      },
      { timeoutMs: 10_000, what: 'carol@beta offline at alpha once she left' },
    );
    // swb peers says so too.
    const out = await runSwb(['peers'], { home: world.alpha.home });
    expect(out.stdout).toMatch(/@carol@beta\s+offline\s+remote .* node beta, seen \d+ s ago/);
  });

  it('an unknown recipient on the other node comes back expired; a bare handle never leaves the node', async () => {
    const alice = await world.alpha.session('alice2');
    const sent = await ok(alice, 'mail.send', { to: ['nobody@beta'], text: 'anyone?' });
    await waitUntil(async () => (await receipt(world.alpha, sent.id)).recipients[0].state === 'expired', { timeoutMs: 10_000, what: 'expired at alpha' });
    const local = await alice.request('mail.send', { to: ['bob'], text: 'local only' }, 5000);
    expect(local).toMatchObject({ kind: 'error', code: 'UNKNOWN_PEER' });
  });

  it('swb send @bob@beta from the CLI, and swb status names the link', async () => {
    const bob = await world.beta.session('bob3', true);
    const r = await runSwb(['send', '--as', 'dave', '@bob3@beta', 'from the CLI'], { home: world.alpha.home });
    expect(r.status, r.stderr).toBe(0);
    await waitUntil(() => bob.stray.find((l) => l.method === 'mail.arrived' && l.params.message.text === 'from the CLI'), { timeoutMs: 10_000, what: 'CLI mail at bob3' });
    const status = await runSwb(['status'], { home: world.alpha.home });
    expect(status.stdout).toMatch(/federation: node alpha on nats:\/\/127\.0\.0\.1:\d+: link up since/);
  });
});

describe('broadcast', () => {
  it('@all stays on this node; @all@* reaches the online sessions of every node', async () => {
    const erin = await world.beta.session('erin', true);
    const frank = await world.alpha.session('frank', true);
    const grace = await world.alpha.session('grace');
    // Wait until alpha sees erin online (presence).
    const op = await world.alpha.operator();
    await waitUntil(async () => (await ok(op, 'peers.list', {})).peers.find((p: any) => p.handle === 'erin@beta' && p.online), { timeoutMs: 10_000, what: 'erin@beta online at alpha' });
    const local = await ok(grace, 'mail.send', { to: ['all'], text: 'local broadcast' });
    expect(local.recipients.map((r: any) => r.to)).not.toContain('erin@beta');
    const everywhere = await ok(grace, 'mail.send', { to: ['all@*'], text: 'everyone everywhere' });
    expect(everywhere.recipients.map((r: any) => r.to)).toEqual(expect.arrayContaining(['frank', 'erin@beta']));
    await waitUntil(() => erin.stray.find((l) => l.method === 'mail.arrived' && l.params.message.text === 'everyone everywhere'), { timeoutMs: 10_000, what: 'the broadcast at erin' });
    await waitUntil(() => frank.stray.find((l) => l.method === 'mail.arrived' && l.params.message.text === 'everyone everywhere'), { timeoutMs: 10_000, what: 'the broadcast at frank' });
    expect(erin.stray.some((l) => l.method === 'mail.arrived' && l.params.message.text === 'local broadcast')).toBe(false);
  });
});

describe('a NATS server that comes back empty', () => {
  it('gets the stream and consumers made again, and mail flows', async () => {
    await world.nats.stop('SIGKILL');
    world.nats.wipeStore();
    await world.nats.restart();
    const ivan = await world.beta.session('ivan', true);
    const judy = await world.alpha.session('judy');
    await waitUntil(
      async () => {
        const r = await judy.request('mail.send', { to: ['ivan@beta'], text: `after the wipe` , messageId: 'after-wipe' }, 5000);
        return r.kind === 'ok';
      },
      { timeoutMs: 10_000, what: 'a send after the wipe' },
    );
    await waitUntil(() => ivan.stray.find((l) => l.method === 'mail.arrived' && l.params.message.text === 'after the wipe'), { timeoutMs: 20_000, what: 'mail after the wipe at ivan' });
  });
});

describe('identity across nodes', () => {
  it('a node may not publish as another: NATS refuses alpha publishing under swb.beta', async () => {
    const nc = await connect({ servers: world.nats.url, user: 'alpha', pass: 'change-me-alpha', inboxPrefix: '_INBOX_swb_alpha' });
    const errors: string[] = [];
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'error') errors.push(String((s as { error?: unknown }).error));
    })();
    nc.publish('swb.beta.gamma.m', '{}');
    await nc.flush().catch((e: unknown) => errors.push(String(e)));
    await waitUntil(() => errors.some((e) => /permission/i.test(e)), { timeoutMs: 5000, what: 'a permissions violation' });
    // Nor may it read beta's mail.
    const pull = await nc.request('$JS.API.CONSUMER.MSG.NEXT.SWB_MAIL.swb-beta', JSON.stringify({ batch: 1, no_wait: true }), { timeout: 2000 }).then(
      () => 'answered',
      (e: unknown) => String(e),
    );
    expect(pull).not.toBe('answered');
    await nc.close();
  });

  it('an envelope naming another origin than its subject is refused on receipt and stores nothing', async () => {
    const nc = await connect({ servers: world.nats.url, user: 'alpha', pass: 'change-me-alpha', inboxPrefix: '_INBOX_swb_alpha' });
    const forged = { v: 1, origin: 'gamma', epoch: 'ab', seq: 10, prev: 0, t: 'mail', from: 'mallory', messageId: 'forged-1', to: ['bob'], kind: 'msg', text: 'I am gamma', replyTo: null, createdAt: Date.now() };
    const { jetstream } = await import('@nats-io/jetstream');
    await jetstream(nc).publish('swb.alpha.beta.m', JSON.stringify(forged));
    await waitUntil(() => /refused an envelope on swb\.alpha\.beta\.m .*a node may only publish as itself/.test(world.beta.log), { timeoutMs: 10_000, what: 'beta to refuse the forgery' });
    const op = await world.beta.operator();
    const { peers } = await ok(op, 'peers.list', {});
    expect(peers.map((p: any) => p.handle)).not.toContain('mallory@gamma');
    await nc.close();
  });

  it('a password file others may read is refused at start, saying what to do', async () => {
    const gamma = new FedNode('gamma', world.nats);
    chmodSync(join(gamma.home.home, 'nats-password'), 0o644);
    await expect(gamma.start()).rejects.toThrow(/federation\.passwordFile: .* may be read by others \(mode 644\); chmod 600 it/);
  });

  it('a node with NODE_EXTRA_CA_CERTS set aside (as a launched server has it) still links to a plain nats:// server', async () => {
    // Its NATS link adds those authorities only for TLS: any tls option would make the NATS client
    // refuse a server that offers none. (Any readable file: it is never used as certificates here.)
    const gamma = new FedNode('gamma', world.nats, { env: { SWB_NODE_EXTRA_CA_CERTS: fileURLToPath(import.meta.url) } });
    await gamma.start();
    const op = await gamma.operator();
    await waitUntil(async () => (await ok(op, 'federation.status', {})).link.state === 'up', { timeoutMs: 15_000, what: 'gamma’s link up' });
    op.destroy();
    await gamma.stop();
  });

  it('a second server claiming a live node name is refused with NODE_COLLISION', async () => {
    const impostor = new FedNode('alpha', world.nats);
    await expect(impostor.start()).rejects.toThrow(/NODE_COLLISION: another swb server .* holds node name alpha/);
  });
});
