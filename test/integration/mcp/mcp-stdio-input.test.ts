// `swb mcp` as a script or an agent feeds it, line by line on its stdin, against a real hub in a temp
// SWB_HOME: calls written all at once with stdin closed straight after are all answered before it
// exits 0 (issue #31.2), and a line too long to take is answered with a typed error naming the call
// while the server stays up for the next one (issue #34.3).
import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups } from '../../helpers/cleanup.js';
import { startTestHub } from '../../helpers/hub-harness.js';
import { runSwb, spawnSwb } from '../../helpers/run-swb.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;
const initialize = line({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } },
});
const initialized = line({ jsonrpc: '2.0', method: 'notifications/initialized' });
const toolCall = (id: number, name: string, args: Record<string, unknown> = {}): string =>
  line({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

interface Answer {
  id: number | string | null;
  result?: { isError?: boolean; structuredContent?: Record<string, unknown> };
  error?: { code: number; message: string; data?: { code: string; details?: Record<string, unknown> } };
}
const answersIn = (stdout: string): Answer[] =>
  stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Answer);

describe('swb mcp on stdin', () => {
  it('answers every call written before the end of input, then exits 0', async () => {
    const { home } = await startTestHub();
    // All three lines and the end of input in one go, as `printf ... | swb mcp` does.
    const r = await runSwb(['mcp', '--as', 'alice'], { home, input: initialize + initialized + toolCall(2, 'peers') });
    expect(r.status, r.stderr).toBe(0);
    const answers = answersIn(r.stdout);
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(answers[1]!.result?.structuredContent?.peers).toEqual(expect.arrayContaining([expect.objectContaining({ handle: 'alice' })]));
  });

  it('a 20 MB call is answered FRAME_TOO_LARGE with its id; the next call is served and the end of input exits 0', { timeout: 90_000 }, async () => {
    const { home } = await startTestHub();
    const mcp = spawnSwb(['mcp', '--as', 'alice'], { home, stdinOpen: true, input: initialize + initialized, timeoutMs: 60_000 });
    await waitUntil(() => answersIn(mcp.stdout()).some((a) => a.id === 1), { what: 'the initialize answer', timeoutMs: 15_000 });

    // 2 MB fits the line: the hub's message limit answers, as a tool error.
    mcp.child.stdin!.write(toolCall(5, 'send', { to: ['alice'], text: 'x'.repeat(2 * 1024 * 1024) }));
    const two = await waitUntil(() => answersIn(mcp.stdout()).find((a) => a.id === 5), { what: 'the 2 MB answer', timeoutMs: 15_000 });
    expect(two.result).toMatchObject({ isError: true, structuredContent: { code: 'MESSAGE_TOO_LARGE' } });

    // 20 MB does not: it is skipped as it streams and answered with a typed error naming the call.
    mcp.child.stdin!.write(toolCall(7, 'send', { to: ['alice'], text: 'y'.repeat(20 * 1024 * 1024) }));
    const big = await waitUntil(() => answersIn(mcp.stdout()).find((a) => a.id === 7), { what: 'the 20 MB answer', timeoutMs: 30_000 });
    expect(big.error?.data?.code).toBe('FRAME_TOO_LARGE');
    expect(big.error?.message).toMatch(/longer than swb mcp's limit of \d+ bytes/);
    expect(mcp.hasExited()).toBe(false);

    // The server is still there for the next call.
    mcp.child.stdin!.write(toolCall(8, 'peers'));
    const next = await waitUntil(() => answersIn(mcp.stdout()).find((a) => a.id === 8), { what: 'the next answer', timeoutMs: 15_000 });
    expect(next.result?.structuredContent?.peers).toBeInstanceOf(Array);

    mcp.child.stdin!.end();
    const done = await mcp.exited;
    expect(done.status, done.stderr).toBe(0);
    expect(answersIn(done.stdout).map((a) => a.id)).toEqual([1, 5, 7, 8]);
  });

  it('a line that is not JSON-RPC gets an error answer, and the server goes on', async () => {
    const { home } = await startTestHub();
    const r = await runSwb(['mcp', '--as', 'alice'], { home, input: initialize + '{"jsonrpc":"2.0","id":3,"method":\n' + '[1,2]\n' + toolCall(4, 'peers') });
    expect(r.status, r.stderr).toBe(0);
    const answers = answersIn(r.stdout);
    // Refusals are written at once, the SDK's answers when their handlers finish: order aside, one each.
    expect(answers).toHaveLength(4);
    const byId = (id: number | null) => answers.find((a) => a.id === id);
    expect(byId(1)?.result).toBeTruthy();
    expect(byId(3)?.error?.data?.code).toBe('BAD_FRAME');
    expect(byId(null)?.error?.data?.code).toBe('BAD_FRAME');
    expect(byId(4)?.result?.structuredContent?.peers).toBeInstanceOf(Array);
  });
});
