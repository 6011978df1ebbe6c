// The `coordinate_resource` MCP tool (issue #35; the peer protocol's operations): status, request,
// grant, release, cancel_request, set_controller — the same hub methods `swb resource` calls, over
// the MCP server's own connection, so the row speaks as itself and the hub applies the same
// authority (a row: its own tickets; the operator or a controller: grant, force, policy). The input
// is one object whose `operation` decides which fields apply (a flat JSON Schema, which every MCP
// client accepts; checked here against a discriminated union). Peer strings are sanitized.
import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SwbError } from '../protocol/error-codes.js';
import { HANDLE_PATTERN } from '../protocol/handle.js';
import { MAX_REASON_CHARS, MAX_RESOURCES_PER_REQUEST, RESOURCE_NAME_PATTERN, type ResourceStatus, type TicketView } from '../protocol/resource-name.js';
import { formatStatus, formatTicket } from '../text/format-ticket.js';
import { sanitize } from '../text/sanitize.js';
import type { HubClient } from '../client/hub-client.js';

/** A connection to the hub as the row (swb-tools.ts makes it once, for every tool). */
type Connect = () => Promise<HubClient>;

const OPERATIONS = ['status', 'request', 'grant', 'release', 'cancel_request', 'set_controller'] as const;
const WAIT_ROUND_MS = 25_000;
const name = z.string().regex(RESOURCE_NAME_PATTERN);
const ticket = z.number().int().positive();

/** What each operation takes (checked after the flat tool input arrives). */
const operation = z.discriminatedUnion('operation', [
  z.object({ operation: z.literal('status'), name: name.optional() }),
  z.object({
    operation: z.literal('request'),
    resources: z.array(name).min(1).max(MAX_RESOURCES_PER_REQUEST),
    reason: z.string().max(MAX_REASON_CHARS).optional(),
    waitSeconds: z.number().min(0).max(3600).optional(),
  }),
  z.object({ operation: z.literal('grant'), ticket }),
  z.object({ operation: z.literal('release'), ticket, force: z.boolean().optional() }),
  z.object({ operation: z.literal('cancel_request'), ticket }),
  z.object({ operation: z.literal('set_controller'), name, controller: z.string().regex(HANDLE_PATTERN).nullable() }),
]);

function fail(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }], structuredContent: { code, message } };
}

function cleanTicket(t: TicketView): Record<string, unknown> {
  const c = (s: string, max = 200) => sanitize(s, { singleLine: true, maxChars: max });
  return {
    ...t,
    holder: c(t.holder, 64),
    reason: t.reason === null ? null : c(t.reason),
    why: t.why === null ? null : c(t.why),
    launch: t.launch && { ...t.launch, command: c(t.launch.command, 512) },
    ...(t.blockers ? { blockers: t.blockers.map((b) => ({ ...b, holder: c(b.holder, 64) })) } : {}),
  };
}

function cleanStatus(s: ResourceStatus): Record<string, unknown> {
  return { ...s, controller: s.controller === null ? null : sanitize(s.controller, { singleLine: true, maxChars: 64 }), holders: s.holders.map(cleanTicket), queue: s.queue.map(cleanTicket) };
}

export function registerCoordinateResourceTool(server: McpServer, connect: Connect): void {
  server.registerTool(
    'coordinate_resource',
    {
      title: 'Coordinate a shared resource',
      description:
        'Reserve things only one agent may use at a time (a dev server port, the test database, the e2e suite, a deploy). ' +
        'operation status [name]: who holds what and who waits. request resources[] (all or none) [reason] [waitSeconds]: wait for a grant; ' +
        'keep it until you release it (to run one command under a reservation, prefer the shell: swb run --resource NAME -- CMD). ' +
        'release ticket: give it back. cancel_request ticket: withdraw a waiting request. grant ticket / release with force / ' +
        'set_controller name controller: the operator or the resource\'s controller only.',
      inputSchema: {
        operation: z.enum(OPERATIONS).describe('what to do'),
        name: z.string().optional().describe('status, set_controller: the resource (e.g. db, port:3000)'),
        resources: z.array(z.string()).optional().describe('request: the resources, all or none'),
        reason: z.string().optional().describe('request: why (shown to others)'),
        waitSeconds: z.number().optional().describe('request: give up after this long (RESOURCE_WAIT_TIMEOUT); default: the policy\'s, else 60'),
        ticket: z.number().int().optional().describe('grant, release, cancel_request: the ticket number'),
        force: z.boolean().optional().describe('release: anyone\'s or an uncertain ticket (operator or controller only)'),
        controller: z.string().nullable().optional().describe('set_controller: the row that grants by hand, or null for the hub\'s automatic order'),
      },
    },
    async (args) => {
      const parsed = operation.safeParse(args);
      if (!parsed.success) return fail('BAD_REQUEST', `${args.operation}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`);
      try {
        return await perform(parsed.data, connect);
      } catch (err) {
        return fail(err instanceof SwbError ? err.code : 'INTERNAL', err instanceof Error ? err.message : String(err));
      }
    },
  );
}

async function perform(op: z.infer<typeof operation>, connect: Connect): Promise<CallToolResult> {
  const client = await connect();
  const ticketResult = (t: TicketView) => ({ content: [{ type: 'text' as const, text: formatTicket(t) }], structuredContent: cleanTicket(t) });
  switch (op.operation) {
    case 'status': {
      const r = await client.request<{ resources: ResourceStatus[] }>('resource.status', op.name !== undefined ? { name: op.name } : {});
      const text = r.resources.flatMap(formatStatus).join('\n') || 'No resources are reserved or have a policy.';
      return { content: [{ type: 'text', text }], structuredContent: { resources: r.resources.map(cleanStatus) } };
    }
    case 'request': {
      const waitMs = Math.round((op.waitSeconds ?? 60) * 1000);
      let view = await client.request<TicketView>(
        'resource.request',
        { resources: op.resources, waitMs, ...(op.reason !== undefined ? { reason: op.reason } : {}) },
        { timeoutMs: WAIT_ROUND_MS + client.requestTimeoutMs },
      );
      while (view.state === 'queued') {
        view = await client.request<TicketView>('resource.wait', { ticket: view.ticket, waitMs: WAIT_ROUND_MS }, { timeoutMs: WAIT_ROUND_MS + client.requestTimeoutMs });
      }
      return ticketResult(view);
    }
    case 'grant':
      return ticketResult(await client.request<TicketView>('resource.grant', { ticket: op.ticket }));
    case 'release':
      return ticketResult(await client.request<TicketView>('resource.release', { ticket: op.ticket, ...(op.force ? { force: true } : {}) }));
    case 'cancel_request':
      return ticketResult(await client.request<TicketView>('resource.cancel', { ticket: op.ticket }));
    case 'set_controller': {
      const s = await client.request<ResourceStatus>('resource.policy', { name: op.name, controller: op.controller });
      return { content: [{ type: 'text', text: formatStatus(s).join('\n') }], structuredContent: cleanStatus(s) };
    }
  }
}
