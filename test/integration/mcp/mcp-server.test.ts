// `swb mcp` driven by an independent MCP client (the SDK's own, over stdio), against a real hub:
// the tools are listed with schemas, each works, identity comes from the connection (a row's token,
// or --as for an outsider), refusals are tool errors carrying swb's code, and peer text is sanitized.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { swbBinPath } from '../../../src/util/package-root.js';
import { runCleanups, deferCleanup } from '../../helpers/cleanup.js';
import { connectOperator, startTestHub } from '../../helpers/hub-harness.js';
import { swbEnv } from '../../helpers/run-swb.js';
import type { TempHome } from '../../helpers/temp-home.js';

afterEach(runCleanups);

async function mcpClient(home: TempHome, args: string[] = [], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [swbBinPath(), 'mcp', ...args],
    env: swbEnv(home, env) as Record<string, string>,
    cwd: home.workspace,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'swb-test', version: '1' });
  await client.connect(transport);
  deferCleanup('mcp client', () => client.close());
  return client;
}

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, any> };
const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => (await c.callTool({ name, arguments: args })) as ToolResult;

describe('swb mcp', () => {
  it('lists the eight tools with their input schemas', async () => {
    const { home } = await startTestHub();
    const c = await mcpClient(home, ['--as', 'alice']);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['coordinate_resource', 'inbox', 'peers', 'read', 'reply', 'send', 'status', 'wait']);
    const send = tools.find((t) => t.name === 'send')!;
    expect(send.description).toMatch(/Send a message/);
    expect(send.inputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['to', 'text']) });
  });

  it('a row sends, reads and replies as itself; the store cannot tell it from the CLI; peer text arrives sanitized', async () => {
    const { hub, home, paths } = await startTestHub();
    const op = await connectOperator(paths);
    const reg = (await op.client.request('session.registerRow', { handle: 'worker' })) as { token: string };
    const worker = await mcpClient(home, [], { SWB_SESSION: 'worker', SWB_TOKEN: reg.token, SWB_SOCKET: paths.socketPath });
    const outsider = await mcpClient(home, ['--as', 'boss']);

    // An outsider asks, with an escape sequence in the text.
    const asked = await call(outsider, 'send', { to: ['worker'], text: 'please \x1b]0;pwned\x07 check', kind: 'task' });
    expect(asked.isError).toBeFalsy();
    const askId = asked.structuredContent!.id as number;

    const inbox = await call(worker, 'inbox');
    expect(inbox.structuredContent!.messages).toHaveLength(1);
    const m = inbox.structuredContent!.messages[0];
    expect(m).toMatchObject({ id: askId, from: 'boss', to: ['worker'], kind: 'task' });
    expect(m.text).not.toMatch(/\x1b|\x07/);
    expect(inbox.content[0]!.text).not.toMatch(/\x1b|\x07/);

    const replied = await call(worker, 'reply', { id: askId, text: 'done' });
    expect(replied.content[0]!.text).toMatch(new RegExp(`accepted #\\d+ → @boss \\(re #${askId}\\)`));
    // Identity came from the token: the store says the row sent it.
    const reply = hub.store.message(replied.structuredContent!.id as number)!;
    expect(reply).toMatchObject({ from: 'worker', to: ['boss'], replyTo: askId, kind: 'response' });
    expect(hub.store.receipts(askId)!.recipients[0]).toMatchObject({ to: 'worker', state: 'replied' });

    const status = await call(outsider, 'status', { id: askId });
    expect(status.structuredContent!.recipients[0]).toMatchObject({ to: 'worker', state: 'replied' });
    const theirs = await call(outsider, 'inbox');
    expect(theirs.structuredContent!.messages.map((x: { text: string }) => x.text)).toEqual(['done']);
    expect((await call(outsider, 'read', { ids: [reply.id] })).structuredContent).toMatchObject({ updated: 1 });
    const peers = await call(outsider, 'peers');
    expect(peers.structuredContent!.peers.map((p: { handle: string }) => p.handle)).toEqual(expect.arrayContaining(['boss', 'worker']));
  });

  it('wait returns new mail when it comes, and says when none came', async () => {
    const { home } = await startTestHub();
    const waiter = await mcpClient(home, ['--as', 'waiter']);
    const sender = await mcpClient(home, ['--as', 'sender']);
    await call(waiter, 'inbox'); // the handle exists before the send
    const waiting = call(waiter, 'wait', { timeoutSeconds: 10 });
    await call(sender, 'send', { to: ['waiter'], text: 'wake up' });
    const got = await waiting;
    expect(got.structuredContent).toMatchObject({ timedOut: false, messages: [expect.objectContaining({ text: 'wake up', from: 'sender' })] });
    // Unread mail ends a wait at once (as `swb wait`): read it, then nothing is left to wait for.
    await call(waiter, 'read', { ids: [got.structuredContent!.messages[0].id] });
    const none = await call(waiter, 'wait', { timeoutSeconds: 0.2 });
    expect(none.structuredContent).toMatchObject({ timedOut: true, messages: [] });
  });

  it("refusals are tool errors with swb's code and sentence; bad arguments never reach the hub", async () => {
    const { home } = await startTestHub();
    const c = await mcpClient(home, ['--as', 'alice']);
    const unknown = await call(c, 'send', { to: ['nobody-here'], text: 'hi' });
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toMatchObject({ code: 'UNKNOWN_PEER' });
    expect(unknown.content[0]!.text).toMatch(/^UNKNOWN_PEER: /);
    const missing = await call(c, 'status', { id: 999_999 });
    expect(missing).toMatchObject({ isError: true, structuredContent: { code: 'NOT_FOUND' } });
    const bad = await call(c, 'read', { ids: [] });
    expect(bad.isError).toBe(true);
  });

  it('coordinate_resource: a row reserves as itself; others wait, time out, and may not release it; the operator\'s powers stay the operator\'s', async () => {
    const { home, paths } = await startTestHub();
    const op = await connectOperator(paths);
    const reg = (await op.client.request('session.registerRow', { handle: 'worker' })) as { token: string };
    const worker = await mcpClient(home, [], { SWB_SESSION: 'worker', SWB_TOKEN: reg.token, SWB_SOCKET: paths.socketPath });
    const outsider = await mcpClient(home, ['--as', 'boss']);

    const got = await call(worker, 'coordinate_resource', { operation: 'request', resources: ['port:3000'], reason: 'dev \x1b[31mserver' });
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent).toMatchObject({ holder: 'worker', state: 'granted', resources: ['port:3000'] });
    expect(got.structuredContent!.reason).not.toMatch(/\x1b/);
    const ticket = got.structuredContent!.ticket as number;

    const late = await call(outsider, 'coordinate_resource', { operation: 'request', resources: ['port:3000'], waitSeconds: 0.3 });
    expect(late).toMatchObject({ isError: true, structuredContent: { code: 'RESOURCE_WAIT_TIMEOUT' } });
    expect((await call(outsider, 'coordinate_resource', { operation: 'release', ticket })).structuredContent).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect((await call(worker, 'coordinate_resource', { operation: 'set_controller', name: 'port:3000', controller: 'worker' })).structuredContent).toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    expect((await call(worker, 'coordinate_resource', { operation: 'request' })).structuredContent).toMatchObject({ code: 'BAD_REQUEST' });

    const status = await call(outsider, 'coordinate_resource', { operation: 'status', name: 'port:3000' });
    expect(status.structuredContent!.resources[0].holders[0]).toMatchObject({ ticket, holder: 'worker', state: 'granted' });
    expect(status.content[0]!.text).toMatch(/#\d+\s+worker\s+granted/);
    expect((await call(worker, 'coordinate_resource', { operation: 'release', ticket })).structuredContent).toMatchObject({ state: 'released' });
  });
});
