// What one node publishes to another on NATS (src/federation/nats-link.ts), and the checks a
// receiver makes before any of it reaches the store. An envelope carries a run of items for one
// destination node — mail (one message, for all of its recipients there) and receipts — each with
// its outbox id at the origin. The envelope names the origin's epoch, `prev` (the outbox id of the
// item before its first one on this origin→destination chain) and `seq` (its last item's id), so
// the receiver applies items in the order they were accepted, across retries, regroupings, NATS
// restarts and crashes: a run it has seen is a duplicate, a run that starts past what it has is a
// gap to wait for, and an overlapping run contributes only its new items.
import { isValidHandle } from '../protocol/handle.js';
import { MESSAGE_KINDS, type MessageKind } from '../protocol/methods.js';
import { isValidNodeName } from '../protocol/remote-address.js';

export const ENVELOPE_VERSION = 1;
/** Subjects: swb.<origin>.<destination>.<m|r>. NATS permissions let a node publish only under swb.<itself>.>. */
export const SUBJECT_ROOT = 'swb';
export const STREAM = 'SWB_MAIL';

export interface Chain {
  origin: string;
  /** The origin store's random epoch: a store started afresh under the same node name starts a new chain. */
  epoch: string;
  seq: number;
  prev: number;
}

export interface MailBody {
  t: 'mail';
  from: string;
  messageId: string;
  /** Recipients on the destination node, as handles there. */
  to: string[];
  kind: MessageKind;
  text: string;
  /** The message replied to, as the destination knows it: its sender there and its id. */
  replyTo: { sender: string; messageId: string } | null;
  createdAt: number;
}

export interface ReceiptBody {
  t: 'receipt';
  /** The original message's sender, as a handle on the destination node (where it was sent from). */
  sender: string;
  messageId: string;
  /** The recipient on the origin node whose receipt this is. */
  to: string;
  /** The stored state code (src/store/receipt-state.ts). */
  state: number;
  woken: boolean;
  /** How the recipient was told, when woken: a line swb typed, or its agent's own hook. */
  how?: 'typed' | 'hook' | null;
  at: number;
}

export type Item = (MailBody | ReceiptBody) & { id: number };

export type Envelope = Chain & { v: number; items: Item[] };

/** At most this many items, and about this many bytes, in one envelope (under NATS's 1 MB payload). */
export const MAX_ITEMS = 256;
export const MAX_ENVELOPE_JSON = 512 * 1024;
/** The longest text mail to another node may carry, as JSON (escapes counted): one item fits one envelope. */
export const MAX_REMOTE_TEXT_JSON = MAX_ENVELOPE_JSON - 4096;

export function mailSubject(origin: string, destination: string): string {
  return `${SUBJECT_ROOT}.${origin}.${destination}.m`;
}

/** Everything addressed to `node`, from any origin. */
export function inboundFilter(node: string): string {
  return `${SUBJECT_ROOT}.*.${node}.*`;
}

/** The run (prev, seq] of a chain holds the same items however often it is published. */
export function dedupId(c: Chain): string {
  return `${c.origin}:${c.epoch}:${c.prev}-${c.seq}`;
}

/** The origin a subject names (the only one the NATS permissions let have published it), or null. */
export function originOfSubject(subject: string, self: string): string | null {
  const parts = subject.split('.');
  if (parts.length !== 4 || parts[0] !== SUBJECT_ROOT || parts[2] !== self || parts[3] !== 'm' || !isValidNodeName(parts[1]!)) return null;
  return parts[1]!;
}

const MAX_TEXT = 1 << 20;

/**
 * Parses and checks an envelope that arrived on `subject`. Anything that does not fit is refused
 * with a reason (the link drops it and says so in the log): a node may only speak as itself, so
 * an envelope naming another origin than its subject is refused too.
 */
export function readEnvelope(data: Uint8Array, subject: string, self: string, maxBytes: number): { ok: Envelope } | { refused: string } {
  const origin = originOfSubject(subject, self);
  if (!origin) return { refused: `subject ${subject} is not swb.<origin>.${self}.m` };
  if (data.length > maxBytes) return { refused: `envelope of ${data.length} bytes is over ${maxBytes}` };
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    return { refused: 'not JSON' };
  }
  if (!isRecord(v)) return { refused: 'not an object' };
  if (v.v !== ENVELOPE_VERSION) return { refused: `envelope version ${String(v.v)} (this node reads ${ENVELOPE_VERSION})` };
  if (v.origin !== origin) return { refused: `from ${origin} but names origin ${String(v.origin)}: a node may only publish as itself` };
  if (typeof v.epoch !== 'string' || !/^[0-9a-f]{1,32}$/.test(v.epoch)) return { refused: 'bad epoch' };
  if (!isCount(v.seq) || !isCount(v.prev) || v.prev >= v.seq) return { refused: 'bad seq/prev' };
  if (!Array.isArray(v.items) || v.items.length < 1 || v.items.length > MAX_ITEMS) return { refused: `an envelope holds 1 to ${MAX_ITEMS} items` };
  let last = v.prev;
  for (const item of v.items as unknown[]) {
    if (!isRecord(item) || !isCount(item.id) || item.id <= last) return { refused: 'item ids must rise above prev' };
    last = item.id;
    const bad = itemProblem(item);
    if (bad) return { refused: `item ${item.id}: ${bad}` };
  }
  if (last !== v.seq) return { refused: 'seq is not the last item\'s id' };
  return { ok: v as unknown as Envelope };
}

function itemProblem(v: Record<string, unknown>): string | null {
  if (typeof v.messageId !== 'string' || v.messageId.length < 1 || v.messageId.length > 128) return 'bad message id';
  if (v.t === 'mail') {
    if (!isHandle(v.from)) return 'bad sender handle';
    if (!Array.isArray(v.to) || v.to.length < 1 || v.to.length > 256 || !v.to.every(isHandle)) return 'bad recipients';
    if (new Set(v.to).size !== v.to.length) return 'a recipient named twice';
    if (!(MESSAGE_KINDS as readonly unknown[]).includes(v.kind)) return 'bad kind';
    if (typeof v.text !== 'string' || v.text.length === 0 || v.text.length > MAX_TEXT) return 'bad text';
    if (!isCount(v.createdAt)) return 'bad createdAt';
    const r = v.replyTo;
    if (r !== null && !(isRecord(r) && isHandle(r.sender) && typeof r.messageId === 'string' && r.messageId.length >= 1 && r.messageId.length <= 128)) return 'bad replyTo';
    return null;
  }
  if (v.t === 'receipt') {
    if (!isHandle(v.sender) || !isHandle(v.to)) return 'bad receipt handles';
    if (![0, 1, 2, 3, 9].includes(v.state as number)) return 'bad state';
    if (typeof v.woken !== 'boolean' || !isCount(v.at)) return 'bad receipt';
    if (v.how !== undefined && v.how !== null && v.how !== 'typed' && v.how !== 'hook') return 'bad receipt';
    return null;
  }
  return `unknown item type ${String(v.t)}`;
}

function isHandle(v: unknown): v is string {
  return typeof v === 'string' && isValidHandle(v);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
