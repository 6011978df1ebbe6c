// The page's mail tools, all through the operator port: send as the operator, the history a page at a
// time with each message's receipts, one message's receipts, marking read (whose copies: the mail
// view's rule), the peers, the mail parked for review, and granting two held rows another budget.
// The params are the hub's own schemas where the hub has one, so a page and a socket client are
// held to the same limits; the hub's answers (codes, sentences) pass through.
import * as z from 'zod';
import { markReadTargets } from '../app/mail-view-threads.js';
import { toMailEntry } from '../app/mail-view-state.js';
import type { OperatorPort } from '../hub/operator-port.js';
import { HANDLE_HINT, HANDLE_PATTERN } from '../protocol/handle.js';
import { lazySchema } from '../protocol/lazy-schema.js';
import { emptyParams, historyParams, receiptParams, sendParams } from '../protocol/method-params.js';
import type { MailItem } from '../protocol/methods.js';
import { fromSwb, sayLine, toolError, type ToolMethod, type ToolTable } from './tool-method.js';
import type { MailEntryView } from './tool-protocol.js';

// The params' schemas are built at a tool's first call (protocol/lazy-schema.ts says why).
const handle = lazySchema(() => z.string().regex(HANDLE_PATTERN, { error: HANDLE_HINT }));
/** A page of the history is at most this many messages (the hub allows 500; a page shows fewer). */
export const MAX_HISTORY_PAGE = 200;

/** A message with its receipts, one per recipient (from the store; none when it cannot tell now). */
export function mailEntryView(port: Pick<OperatorPort, 'receipts'>, item: MailItem): MailEntryView {
  const recipients = port.receipts(item.id)?.recipients;
  const { receipts } = toMailEntry(item, recipients);
  return { ...item, receipts: receipts.map((r) => ({ to: r.to, state: r.state === 'sending' ? 'accepted' : r.state, woken: r.woken })) };
}

export const MAIL_TOOLS: ToolTable = {
  peers: {
    params: emptyParams,
    mutates: false,
    run: (_, { port }) => ({ ok: { peers: port.peers() } }),
  },
  'mail.send': {
    params: sendParams,
    mutates: true,
    async run(params, { port }) {
      const r = await port.send(params);
      return 'error' in r ? fromSwb(r.error) : { ok: r.ok };
    },
  },
  'mail.history': {
    params: lazySchema(() => historyParams().extend({ limit: z.optional(z.int().min(1).max(MAX_HISTORY_PAGE)) })),
    mutates: false,
    run(params, { port }) {
      const r = port.history({ limit: 50, ...params });
      if ('error' in r) return fromSwb(r.error);
      return { ok: { items: r.ok.items.map((m) => mailEntryView(port, m)), more: r.ok.more } };
    },
  },
  'mail.receipts': {
    params: receiptParams,
    mutates: false,
    run({ id }, { port }) {
      const r = port.receipts(id);
      return r ? { ok: r } : toolError('NOT_FOUND', `No message #${id} (or its receipts cannot be read now).`);
    },
  },
  'mail.markRead': {
    params: lazySchema(() => z.strictObject({ id: receiptParams().shape.id, filter: z.optional(z.nullable(handle())) })),
    mutates: true,
    async run({ id, filter }, { port }) {
      const receipt = port.receipts(id);
      if (!receipt) return toolError('NOT_FOUND', `No message #${id} (or its receipts cannot be read now).`);
      const entry = toMailEntry({ id, messageId: receipt.messageId, from: receipt.from, to: receipt.recipients.map((r) => r.to), kind: receipt.kind, text: '', replyTo: null, createdAt: receipt.createdAt }, receipt.recipients);
      const targets = markReadTargets(entry, filter ?? null);
      if (targets.length === 0) return { ok: { updated: 0, for: [] } };
      const r = await port.markRead(targets, id);
      return 'error' in r ? fromSwb(r.error) : { ok: { updated: r.ok.updated, for: targets } };
    },
  },
  'parked.redeliver': parkedTool('redeliver'),
  'parked.discard': parkedTool('discard'),
  'budget.grant': {
    params: lazySchema(() => z.strictObject({ a: handle(), b: handle() })),
    mutates: true,
    async run({ a, b }, { port, note }) {
      const r = await port.grantBudget(a, b);
      if ('error' in r) return fromSwb(r.error);
      note('info', `@${sayLine(a, 64)} ↔ @${sayLine(b, 64)}: granted ${r.ok.budget} more messages`, a);
      return { ok: r.ok };
    },
  },
};

/** The mail parked when a row came back as a fresh conversation: handed over after all, or discarded. */
function parkedTool<N extends 'parked.redeliver' | 'parked.discard'>(action: 'redeliver' | 'discard'): ToolMethod<N> {
  return {
    params: lazySchema(() => z.strictObject({ row: handle() })),
    mutates: true,
    async run({ row }, { port, note }) {
      const r = await (action === 'redeliver' ? port.redeliverParked(row) : port.discardParked(row));
      if ('error' in r) return fromSwb(r.error);
      const n = r.ok.messages;
      const messages = `${n} parked message${n === 1 ? '' : 's'}`;
      const said = action === 'redeliver' ? `@${row}: ${messages} handed over; it is woken for them as usual` : `@${row}: ${messages} discarded (their senders see expired)`;
      note('info', said, row);
      return { ok: { row, messages: n, said } };
    },
  };
}
