// `swb mcp`: swb's mail as an MCP server on stdio (issue #13), for agents that take tools over MCP.
// It speaks as whoever runs it — the row it runs in, found exactly as every CLI command finds it —
// and holds one hub connection, opened again when the hub went away (a server restart). Input is
// read by src/mcp/bounded-stdio-transport.ts: bounded lines, and every call answered before it exits.
import type { CommandDescriptor } from './command.js';
import { packageVersion } from '../util/package-root.js';

export const mcpCommand: CommandDescriptor = {
  name: 'mcp',
  summary: 'Serve swb mail and reservations as MCP tools on stdio (send, inbox, read, reply, wait, peers, status, coordinate_resource).',
  usage: '',
  maxArgs: 0,
  json: false,
  flags: [],
  details:
    'For an agent\'s MCP configuration: command "swb", args ["mcp"]. Inside a row it speaks as that row; the tools are named mcp__swb__send and so on in Claude Code. ' +
    'Rows of an agent whose profile knows how (Claude Code) get it without any config of yours.',
  async run(ctx) {
    const [{ McpServer }, { BoundedStdioTransport }, { registerSwbTools }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('../mcp/bounded-stdio-transport.js'),
      import('../mcp/swb-tools.js'),
    ]);
    const server = new McpServer({ name: 'swb', version: packageVersion() }, { capabilities: { tools: {} } });
    registerSwbTools(server, () => ctx.connect());
    // It closes once input has ended and every call read has its answer written (or stdout is gone).
    const transport = new BoundedStdioTransport();
    await server.connect(transport);
    await transport.closed;
    await server.close().catch(() => undefined);
    return 0;
  },
};
