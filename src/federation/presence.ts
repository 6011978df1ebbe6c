// Who is on the other nodes: each node puts its sessions under its own key of a JetStream KV
// bucket every PRESENCE_BEAT_MS (and soon after a change), and watches everyone else's. An entry
// older than the bucket's TTL is a node that is gone: its peers show offline, with their age.
// The same entry claims the node name: a second server with another store may not take a name
// whose claim is still fresh (NODE_COLLISION).
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV } from '@nats-io/kv';
import { isValidHandle } from '../protocol/handle.js';
import { isValidNodeName } from '../protocol/remote-address.js';

export const PRESENCE_BUCKET = 'swb_presence';
export const PRESENCE_TTL_MS = 30_000;
export const PRESENCE_BEAT_MS = 10_000;

export interface PresencePeer {
  handle: string;
  online: boolean;
}

export interface PresenceValue {
  node: string;
  epoch: string;
  at: number;
  peers: PresencePeer[];
}

export interface RemotePeer {
  handle: string;
  node: string;
  online: boolean;
  /** Milliseconds since that node last told its presence. */
  ageMs: number;
}

export class Presence {
  private readonly nodes = new Map<string, PresenceValue>();
  private watching: { stop(): void } | null = null;

  private constructor(
    private readonly kv: KV,
    private readonly node: string,
    private readonly epoch: string,
    private readonly now: () => number,
  ) {}

  static async open(nc: NatsConnection, node: string, epoch: string, now: () => number): Promise<Presence> {
    const kvm = new Kvm(nc);
    let kv: KV;
    try {
      kv = await kvm.open(PRESENCE_BUCKET);
      await kv.status();
    } catch {
      kv = await kvm.create(PRESENCE_BUCKET, { ttl: PRESENCE_TTL_MS, history: 1 });
    }
    return new Presence(kv, node, epoch, now);
  }

  /**
   * Claims this node name: null when it is ours (free, stale, or already this store's), else the
   * other store's fresh claim. A free name is taken with a create, which only one of two servers
   * starting at once can win.
   */
  async claim(): Promise<{ epoch: string; ageMs: number } | null> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const entry = await this.kv.get(this.node);
      if (!entry || entry.operation !== 'PUT') {
        const value: PresenceValue = { node: this.node, epoch: this.epoch, at: this.now(), peers: [] };
        try {
          await this.kv.create(this.node, JSON.stringify(value));
          return null;
        } catch {
          continue; // someone created it first: look at their claim
        }
      }
      const v = parsePresenceValue(entry.string());
      if (!v || v.epoch === this.epoch) return null;
      const ageMs = this.now() - v.at;
      return ageMs < PRESENCE_TTL_MS ? { epoch: v.epoch, ageMs } : null;
    }
    return null;
  }

  async beat(peers: PresencePeer[]): Promise<void> {
    const value: PresenceValue = { node: this.node, epoch: this.epoch, at: this.now(), peers };
    await this.kv.put(this.node, JSON.stringify(value));
  }

  async watch(onChange: () => void): Promise<void> {
    const it = await this.kv.watch();
    this.watching = it;
    void (async () => {
      for await (const e of it) {
        if (e.key === this.node) continue;
        const v = e.operation === 'PUT' ? parsePresenceValue(e.string()) : null;
        if (v && v.node === e.key && isValidNodeName(e.key)) this.nodes.set(e.key, v);
        else this.nodes.delete(e.key);
        onChange();
      }
    })().catch(() => undefined);
  }

  /** Every session of every other node, offline where its node's presence is stale. */
  remotePeers(): RemotePeer[] {
    const out: RemotePeer[] = [];
    const at = this.now();
    for (const [node, v] of this.nodes) {
      const ageMs = Math.max(0, at - v.at);
      const fresh = ageMs < PRESENCE_TTL_MS;
      for (const p of v.peers) out.push({ handle: p.handle, node, online: fresh && p.online, ageMs });
    }
    return out;
  }

  knownNode(node: string): boolean {
    return this.nodes.has(node);
  }

  stop(): void {
    this.watching?.stop();
  }
}

/** Another node's presence entry, checked (exported for its test). */
export function parsePresenceValue(text: string): PresenceValue | null {
  try {
    const v = JSON.parse(text) as PresenceValue;
    if (typeof v.node !== 'string' || typeof v.epoch !== 'string' || typeof v.at !== 'number' || !Array.isArray(v.peers)) return null;
    // Another node's words: bounded, and only real handles, so nothing else ever reaches a screen
    // (swb peers, the composer's completion) from here.
    v.peers = v.peers.slice(0, 4096).filter((p) => typeof p?.handle === 'string' && isValidHandle(p.handle) && typeof p.online === 'boolean');
    return v;
  } catch {
    return null;
  }
}
