// What one node publishes to another on NATS (src/federation/nats-link.ts), and the checks a
// receiver makes before any of it reaches the store. An envelope is either mail (one message, for
// all of its recipients on the destination node) or one receipt. Each carries its place in the
// origin's outbox: `seq` (the outbox id) and `prev` (the outbox id of the envelope before it to the
// same destination), so the receiver applies them in the order they were accepted, across
// retries, NATS restarts and crashes, and knows a duplicate when it sees one.
import { isValidHandle } from '../protocol/handle.js';
import { MESSAGE_KINDS, type MessageKind } from '../protocol/methods.js';
import { isValidNodeName } from './remote-address.js';

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
  at: number;
}

export type Envelope = Chain & { v: number } & (MailBody | ReceiptBody);

export function mailSubject(origin: string, destination: string, kind: 'mail' | 'receipt'): string {
  return `${SUBJECT_ROOT}.${origin}.${destination}.${kind === 'mail' ? 'm' : 'r'}`;
}

/** Everything addressed to `node`, from any origin. */
export function inboundFilter(node: string): string {
  return `${SUBJECT_ROOT}.*.${node}.*`;
}

export function dedupId(c: Pick<Chain, 'origin' | 'epoch' | 'seq'>): string {
  return `${c.origin}:${c.epoch}:${c.seq}`;
}

/** The origin a subject names (the only one the NATS permissions let have published it), or null. */
export function originOfSubject(subject: string, self: string): string | null {
  const parts = subject.split('.');
  if (parts.length !== 4 || parts[0] !== SUBJECT_ROOT || parts[2] !== self || !isValidNodeName(parts[1]!)) return null;
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
  if (!origin) return { refused: `subject ${subject} is not swb.<origin>.${self}.<m|r>` };
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
  const kind = subject.endsWith('.m') ? 'mail' : subject.endsWith('.r') ? 'receipt' : null;
  if (kind === 'mail' && v.t === 'mail') {
    if (!isValidHandle(String(v.from))) return { refused: 'bad sender handle' };
    if (typeof v.messageId !== 'string' || v.messageId.length < 1 || v.messageId.length > 128) return { refused: 'bad message id' };
    if (!Array.isArray(v.to) || v.to.length < 1 || v.to.length > 256 || !v.to.every((h) => typeof h === 'string' && isValidHandle(h))) return { refused: 'bad recipients' };
    if (!(MESSAGE_KINDS as readonly unknown[]).includes(v.kind)) return { refused: 'bad kind' };
    if (typeof v.text !== 'string' || v.text.length === 0 || v.text.length > MAX_TEXT) return { refused: 'bad text' };
    if (!isCount(v.createdAt)) return { refused: 'bad createdAt' };
    const r = v.replyTo;
    if (r !== null && !(isRecord(r) && isValidHandle(String(r.sender)) && typeof r.messageId === 'string' && r.messageId.length <= 128)) return { refused: 'bad replyTo' };
    return { ok: v as unknown as Envelope };
  }
  if (kind === 'receipt' && v.t === 'receipt') {
    if (!isValidHandle(String(v.sender)) || !isValidHandle(String(v.to))) return { refused: 'bad receipt handles' };
    if (typeof v.messageId !== 'string' || v.messageId.length < 1 || v.messageId.length > 128) return { refused: 'bad message id' };
    if (![1, 2, 3, 9].includes(v.state as number) && v.state !== 0) return { refused: 'bad state' };
    if (typeof v.woken !== 'boolean' || !isCount(v.at)) return { refused: 'bad receipt' };
    return { ok: v as unknown as Envelope };
  }
  return { refused: `a ${String(v.t)} envelope on a ${kind ?? 'unknown'} subject` };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
