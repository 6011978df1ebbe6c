// 10,000 messages from node alpha to node beta while the nemesis stops NATS (SIGKILL) and starts
// it again, SIGKILLs the receiving server and starts it again, then SIGKILLs the sending server
// and starts it again. Senders retry with the same message id until they hear a definite answer.
// Then: every accepted message is in beta's inbox exactly once, in the order it was sent per pair.
import { describe, expect, it } from 'vitest';
import type { DeadlineConnection } from '../helpers/jepsen/deadline-client.js';
import { FedNode, ok, twoNodesForThisFile } from '../helpers/federation.js';
import { waitUntil } from '../helpers/wait-until.js';

const SENDERS = 8;
const RECIPIENTS = 4;
const PER_SENDER = 1250; // 10,000 in all
const TRANSIENT = new Set(['SHUTTING_DOWN', 'DISK_FULL', 'DB_LOCKED', 'HUB_BUSY', 'RATE_LIMITED', 'TIMEOUT']);

// Everything started here (nats-server, hubs, sessions, temp dirs) lives for the whole file.
const world = twoNodesForThisFile();


/** A sender that outlives its node's crashes: it reconnects, says hello again and retries the same id. */
class Sender {
  private conn: DeadlineConnection | null = null;
  accepted = 0;
  retries = 0;

  constructor(
    readonly handle: string,
    private readonly node: FedNode,
  ) {}

  private async connection(): Promise<DeadlineConnection> {
    while (!this.conn || this.conn.closed) {
      try {
        this.conn = await this.node.session(this.handle);
      } catch {
        this.conn = null;
        await new Promise((r) => setTimeout(r, 50)); // the node is down: try again shortly
      }
    }
    return this.conn;
  }

  async run(): Promise<void> {
    for (let n = 0; n < PER_SENDER; n++) {
      const to = `r${n % RECIPIENTS}@beta`;
      for (;;) {
        const conn = await this.connection();
        const r = await conn.request('mail.send', { to: [to], text: `${this.handle} ${n}`, messageId: `${this.handle}-${n}` }, 10_000);
        if (r.kind === 'ok') break;
        if (r.kind === 'error' && !TRANSIENT.has(r.code ?? '')) throw new Error(`${this.handle} #${n}: ${r.code}: ${r.message}`);
        this.retries++;
        if (r.kind === 'indeterminate') this.conn = null;
      }
      this.accepted++;
    }
  }
}

function accepted(senders: Sender[]): number {
  return senders.reduce((a, s) => a + s.accepted, 0);
}

describe('10,000 messages across nodes through faults', () => {
  it('lost 0, duplicates 0, order per pair kept', async () => {
    // The recipients exist on beta before anything is sent to them.
    for (let i = 0; i < RECIPIENTS; i++) (await world.beta.session(`r${i}`)).destroy();
    const senders = Array.from({ length: SENDERS }, (_, i) => new Sender(`s${i}`, world.alpha));
    const load = Promise.all(senders.map((s) => s.run()));
    load.catch(() => undefined); // a sender's failure is reported where the test awaits `load`
    const timeline: string[] = [];
    const at = (what: string) => timeline.push(`${accepted(senders)} accepted: ${what}`);

    await waitUntil(() => accepted(senders) >= 2000, { timeoutMs: 60_000, what: '2,000 accepted' });
    at('NATS SIGKILL');
    await world.nats.stop('SIGKILL');
    await waitUntil(() => accepted(senders) >= 3000, { timeoutMs: 60_000, what: 'sends accepted while NATS is down' });
    // With the link down, the mail waits in alpha's outbox, and swb status says so.
    const op = await world.alpha.operator();
    const down = await waitUntil(async () => {
      const { link } = await ok(op, 'federation.status', {});
      return link.state === 'down' && link.queued > 0 ? link : null;
    }, { timeoutMs: 10_000, what: 'alpha to report the link down with mail queued' });
    expect(down.queued).toBeGreaterThan(0);
    op.destroy();
    at('NATS restart');
    await world.nats.restart();

    await waitUntil(() => accepted(senders) >= 5000, { timeoutMs: 90_000, what: '5,000 accepted' });
    at('beta SIGKILL');
    await world.beta.kill();
    await waitUntil(() => accepted(senders) >= 6000, { timeoutMs: 60_000, what: 'sends accepted while beta is down' });
    at('beta restart');
    await world.beta.start();

    await waitUntil(() => accepted(senders) >= 7500, { timeoutMs: 90_000, what: '7,500 accepted' });
    at('alpha SIGKILL');
    await world.alpha.kill();
    at('alpha restart');
    await world.alpha.start();

    await load;
    at('all sent');

    // Everything arrives at beta: per recipient, page through the inbox in sequence order.
    const inbox = new Map<string, string[]>();
    await waitUntil(
      async () => {
        let total = 0;
        for (let i = 0; i < RECIPIENTS; i++) {
          const r = await world.beta.session(`r${i}`);
          const texts: string[] = [];
          for (let after = 0; ; ) {
            const page = await ok(r, 'mail.list', { after, limit: 1000 });
            texts.push(...page.messages.map((m: any) => `${m.from} ${m.text}`));
            if (!page.more || page.messages.length === 0) break;
            after = page.messages[page.messages.length - 1].seq;
          }
          r.destroy();
          inbox.set(`r${i}`, texts);
          total += texts.length;
        }
        return total >= SENDERS * PER_SENDER;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: 'all 10,000 messages at beta' },
    );

    let lost = 0;
    let duplicates = 0;
    let outOfOrder = 0;
    for (let i = 0; i < RECIPIENTS; i++) {
      const texts = inbox.get(`r${i}`)!;
      for (let s = 0; s < SENDERS; s++) {
        const mine = texts.filter((t) => t.startsWith(`s${s}@alpha `)).map((t) => Number(t.split(' ')[2]));
        const expected = Array.from({ length: PER_SENDER }, (_, n) => n).filter((n) => n % RECIPIENTS === i);
        duplicates += mine.length - new Set(mine).size;
        lost += expected.filter((n) => !mine.includes(n)).length;
        for (let k = 1; k < mine.length; k++) if (mine[k]! < mine[k - 1]!) outOfOrder++;
      }
    }
    const retries = senders.reduce((a, s) => a + s.retries, 0);
    console.log(`federation faults: ${timeline.join('; ')}; sender retries ${retries}; lost ${lost}, duplicates ${duplicates}, out of order ${outOfOrder}`);
    expect({ lost, duplicates, outOfOrder }).toEqual({ lost: 0, duplicates: 0, outOfOrder: 0 });
    // And alpha's outbox empties: every envelope went.
    const op2 = await world.alpha.operator();
    await waitUntil(async () => (await ok(op2, 'federation.status', {})).link.queued === 0, { timeoutMs: 30_000, what: 'alpha’s outbox to empty' });
  });
});
