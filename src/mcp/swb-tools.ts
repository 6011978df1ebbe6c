// swb's mail as MCP tools (issue #13): send, inbox, read, reply, wait, peers, status — and
// coordinate_resource for reservations (issue #35, coordinate-resource.ts) — the same hub
// methods the CLI calls, over the same kind of connection, so a message sent here is indistinguishable
// in the store from one `swb send` sent. Identity is the connection's (the row the server runs in,
// found as the CLI finds it), never a parameter. Every peer string in a result is sanitized: agents
// render tool results too. A refusal is a tool error carrying swb's code and sentence.
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { checkMessageSize, type HubClient } from '../client/hub-client.js';
import { SwbError } from '../protocol/error-codes.js';
import { MESSAGE_KINDS, type MailItem, type PeerInfo, type ReceiptResult, type SendResult } from '../protocol/methods.js';
import { sanitize } from '../text/sanitize.js';
import { formatMail, formatReceipts } from '../text/format-mail.js';
import { registerCoordinateResourceTool } from './coordinate-resource.js';
import { waitForMail } from '../client/wait-for-mail.js';
import { systemClock } from '../util/clock.js';

/** Opens (or reuses) the hub connection of this MCP server's caller. */
export type Connect = () => Promise<HubClient>;

const WAIT_ROUND_MS = 25_000;

function ok(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** Runs a tool body; swb's refusals (and a lost hub) become tool errors with the code and the sentence. */
async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    const code = err instanceof SwbError ? err.code : 'INTERNAL';
    const message = err instanceof Error ? err.message : String(err);
    return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }], structuredContent: { code, message } };
  }
}

/** A message as a tool result carries it: every string from a peer sanitized. */
function cleanMail(m: MailItem): Record<string, unknown> {
  return {
    id: m.id,
    from: sanitize(m.from, { singleLine: true, maxChars: 64 }),
    to: m.to.map((t) => sanitize(t, { singleLine: true, maxChars: 64 })),
    kind: m.kind,
    text: sanitize(m.text, { maxChars: 16_384, maxLines: 400 }),
    replyTo: m.replyTo,
    createdAt: m.createdAt,
    ...(m.state !== undefined ? { state: m.state } : {}),
  };
}

export function registerSwbTools(server: McpServer, connect: Connect): void {
  const handle = z.string().min(1).max(64);
  registerCoordinateResourceTool(server, connect);

  server.registerTool(
    'send',
    {
      title: 'Send mail',
      description: 'Send a message to other agents or the operator through Switchboard (to: handles such as "reviewer", "operator" or "all").',
      inputSchema: {
        to: z.array(handle).min(1).max(64).describe('recipients: row names, "operator", or "all"'),
        text: z.string().min(1).describe('the message'),
        kind: z.enum(MESSAGE_KINDS).optional().describe('msg (default), task, response or data'),
        replyTo: z.number().int().positive().optional().describe('the id of the message this answers'),
        messageId: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/).optional().describe('your own id: a retry with the same id is stored once'),
      },
    },
    (args) =>
      guarded(async () => {
        const client = await connect();
        const to = args.to.map((t) => t.replace(/^@/, ''));
        await checkMessageSize(client, args.text);
        // An id of our own makes a retry after a lost answer safe (stored once).
        const r = await client.request<SendResult>('mail.send', { ...args, to, messageId: args.messageId ?? `mcp-${randomUUID()}` });
        return ok(`accepted #${r.id} → ${to.map((t) => `@${t}`).join(' ')}`, { ...r });
      }),
  );

  server.registerTool(
    'inbox',
    {
      title: 'Read the inbox',
      description: 'Your unread Switchboard mail, oldest first (all: include mail already read). Listing marks it delivered; use read to mark it read.',
      inputSchema: { all: z.boolean().optional().describe('include read mail') },
    },
    (args) =>
      guarded(async () => {
        const client = await connect();
        const messages: MailItem[] = [];
        let after = 0;
        for (;;) {
          const page = await client.request<{ messages: MailItem[]; more?: boolean }>('mail.list', { unreadOnly: args.all !== true, limit: 200 - messages.length, after });
          messages.push(...page.messages);
          const last = page.messages[page.messages.length - 1];
          if (!page.more || !last || messages.length >= 200) break;
          after = last.seq ?? after;
        }
        const text = messages.length === 0 ? (args.all ? 'No mail.' : 'No unread mail.') : messages.map(formatMail).join('\n');
        return ok(text, { messages: messages.map(cleanMail) });
      }),
  );

  server.registerTool(
    'read',
    {
      title: 'Mark mail read',
      description: 'Mark messages of yours read (by id).',
      inputSchema: { ids: z.array(z.number().int().positive()).min(1).max(1000) },
    },
    (args) =>
      guarded(async () => {
        const client = await connect();
        const r = await client.request<{ updated: number; notFound: number[] }>('mail.read', { ids: args.ids });
        const missing = r.notFound.length > 0 ? `; not yours or gone: ${r.notFound.map((n) => `#${n}`).join(' ')}` : '';
        return ok(`marked ${r.updated} read${missing}`, { ...r });
      }),
  );

  server.registerTool(
    'reply',
    {
      title: 'Reply',
      description: 'Reply to a message you received: it goes to its sender, threaded, and marks the message replied.',
      inputSchema: { id: z.number().int().positive(), text: z.string().min(1), kind: z.enum(MESSAGE_KINDS).optional() },
    },
    (args) =>
      guarded(async () => {
        const client = await connect();
        await checkMessageSize(client, args.text);
        const original = await client.request<ReceiptResult>('receipt.get', { id: args.id });
        const r = await client.request<SendResult>('mail.send', {
          to: [original.from],
          text: args.text,
          kind: args.kind ?? 'response',
          replyTo: args.id,
          messageId: `mcp-${randomUUID()}`,
        });
        const from = sanitize(original.from, { singleLine: true, maxChars: 64 });
        return ok(`accepted #${r.id} → @${from} (re #${args.id})`, { ...r, to: from });
      }),
  );

  server.registerTool(
    'wait',
    {
      title: 'Wait for mail',
      description: 'Block until new mail arrives for you or the time is up; returns the new messages.',
      inputSchema: { timeoutSeconds: z.number().positive().max(3600).describe('give up after this many seconds') },
    },
    (args) =>
      guarded(async () => {
        const client = await connect();
        const deadline = systemClock.now() + args.timeoutSeconds * 1000;
        const messages = await waitForMail(client, { deadline, roundMs: WAIT_ROUND_MS }, (m) => m);
        if (messages) return ok(messages.map(formatMail).join('\n'), { messages: messages.map(cleanMail), timedOut: false });
        return ok(`No mail within ${args.timeoutSeconds} s.`, { messages: [], timedOut: true });
      }),
  );

  server.registerTool(
    'peers',
    {
      title: 'List peers',
      description: 'Who can be mailed: every known session, online or not, with its role and unread count.',
      inputSchema: {},
    },
    () =>
      guarded(async () => {
        const client = await connect();
        const peers: PeerInfo[] = [];
        let after: string | undefined;
        for (let pages = 0; pages < 20; pages++) {
          const page = await client.request<{ peers: PeerInfo[]; next?: string | null }>('peers.list', after === undefined ? {} : { after });
          peers.push(...page.peers);
          if (!page.next) break;
          after = page.next;
        }
        const clean = peers.map((p) => ({ ...p, handle: sanitize(p.handle, { singleLine: true, maxChars: 64 }) }));
        const text = clean.map((p) => `@${p.handle}  ${p.online ? 'online' : 'offline'}  ${p.role}`).join('\n') || 'No peers.';
        return ok(text, { peers: clean });
      }),
  );

  server.registerTool(
    'status',
    {
      title: 'Message status',
      description: "A message's receipts per recipient: accepted, delivered, woken, read, replied, expired.",
      inputSchema: { id: z.number().int().positive() },
    },
    (args) =>
      guarded(async () => {
        const client = await connect();
        const r = await client.request<ReceiptResult>('receipt.get', { id: args.id });
        return ok(formatReceipts(r), { ...r, from: sanitize(r.from, { singleLine: true, maxChars: 64 }) });
      }),
  );
}
