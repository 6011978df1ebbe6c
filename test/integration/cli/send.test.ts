// `swb send` as a real process against a real hub: exit codes, output, stdin, and identity from
// a row's environment (DESIGN §3, §8).
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { MailItem, SendResult } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { runSwb, swbEnv } from '../../helpers/run-swb.js';
import { swbBinPath } from '../../../src/util/package-root.js';

afterEach(runCleanups);

describe('swb send', () => {
  it('`swb send @peer text` exits 0 and prints the id of the stored message', async () => {
    const { home, paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const r = await runSwb(['send', '@bob', 'hello', 'bob'], { home });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages).toMatchObject([{ from: 'operator', text: 'hello bob' }]);
    expect(r.stdout).toContain(`#${messages[0]!.id}`);
    expect(r.stdout).toMatch(/@bob/);
  });

  it('`swb send --json` prints the receipt as parseable JSON', async () => {
    const { home, paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' }, { subscribe: true });
    const r = await runSwb(['send', '--json', '@bob', '--id', 'cli-1', 'structured'], { home });
    expect(r.status).toBe(0);
    const receipt = JSON.parse(r.stdout) as SendResult;
    expect(receipt).toMatchObject({ messageId: 'cli-1', duplicate: false, recipients: [{ to: 'bob', state: 'delivered' }] });
    expect(receipt.id).toBeGreaterThan(0);
  });

  it('`swb send` without arguments is a usage error: exit 2', async () => {
    const { home } = await startTestHub();
    const r = await runSwb(['send'], { home });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/swb send --help/);
    // So is an empty TEXT argument (`swb send @bob "$EMPTY"`): nothing reaches the hub.
    const empty = await runSwb(['send', '@bob', ''], { home });
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/^swb send: no TEXT given \(the TEXT argument is empty\)/);
  });

  it('`swb send` to an unknown peer exits 1 and names UNKNOWN_PEER on stderr (or in --json)', async () => {
    const { home } = await startTestHub();
    const r = await runSwb(['send', '@nobody', 'anyone there?'], { home });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/UNKNOWN_PEER/);
    const j = await runSwb(['send', '--json', '@nobody', 'anyone there?'], { home });
    expect(j.status).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ error: { code: 'UNKNOWN_PEER' } });
  });

  it('`swb send @peer` takes the text from stdin when none is given', async () => {
    const { home, paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const r = await runSwb(['send', '@bob'], { home, input: 'first line\nsecond line ✓\n' });
    expect(r.status).toBe(0);
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages.map((m) => m.text)).toEqual(['first line\nsecond line ✓']);
  });

  it("a row's env (SWB_SESSION, SWB_TOKEN, SWB_SOCKET) makes `swb send` speak as that row, from any directory", async () => {
    const { hub, home, paths } = await startTestHub();
    const reg = hub.core.sessions.registerRow('rowan');
    if (!reg.ok) throw new Error(reg.error.message);
    const bob = await connectClient(paths, { session: 'bob' });
    const rowEnv = { SWB_SESSION: 'rowan', SWB_TOKEN: reg.token, SWB_SOCKET: paths.socketPath };
    // From the home dir, a different workspace: only SWB_SOCKET leads to this hub.
    const r = await runSwb(['send', '@bob', 'from the row'], { home, env: rowEnv, cwd: home.home });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages.map((m) => [m.from, m.text])).toEqual([['rowan', 'from the row']]);

    const forged = await runSwb(['send', '@bob', 'forged'], { home, env: { ...rowEnv, SWB_TOKEN: 'stolen?' } });
    expect(forged.status).toBe(1);
    // hello and send go out together (pipelined); the error shown is hello's, not "say hello first".
    expect(forged.stderr).toMatch(/UNAUTHENTICATED: The token does not match/);
  });

  it('a row whose program dropped SWB_TOKEN is refused (UNAUTHENTICATED), never sent as the operator', async () => {
    const { hub, home, paths } = await startTestHub();
    const reg = hub.core.sessions.registerRow('rowan');
    if (!reg.ok) throw new Error(reg.error.message);
    await connectClient(paths, { session: 'bob' });
    const r = await runSwb(['send', '@bob', 'who am I?'], { home, env: { SWB_SESSION: 'rowan', SWB_SOCKET: paths.socketPath } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^swb send: UNAUTHENTICATED: SWB_SESSION names row "rowan" but SWB_TOKEN is not set/);
    expect(hub.store.history({}).items.filter((m) => m.text === 'who am I?')).toEqual([]);
    // An explicit --as still works for a script that happens to inherit SWB_SESSION.
    const as = await runSwb(['send', '--as', 'script', '@bob', 'named'], { home, env: { SWB_SESSION: 'rowan', SWB_SOCKET: paths.socketPath } });
    expect(as.status).toBe(0);
  });

  it('a command whose environment an agent scrubbed (no SWB_* at all, or no SWB_TOKEN) still speaks as its row, found through its ancestors', async () => {
    const { hub, home, paths } = await startTestHub();
    const reg = hub.core.sessions.registerRow('rowan');
    if (!reg.ok) throw new Error(reg.error.message);
    const bob = await connectClient(paths, { session: 'bob' });
    const rowEnv = { SWB_SESSION: 'rowan', SWB_TOKEN: reg.token, SWB_SOCKET: paths.socketPath };
    // The row's program (sh, holding the row's env) runs a command with the variables removed, as
    // Gemini CLI's redaction (SWB_TOKEN) or its GitHub Actions mode (every SWB_*) does.
    // (Asynchronously: the hub answers from this very process.)
    const scrubbed = (unset: string[], text: string) =>
      new Promise<{ status: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn('/bin/sh', ['-c', `env ${unset.map((v) => `-u ${v}`).join(' ')} "$0" "$1" send @bob "$2"; exit $?`, process.execPath, swbBinPath(), text], {
          cwd: home.home,
          env: swbEnv(home, rowEnv),
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
        child.on('error', reject);
        child.on('exit', (status) => resolve({ status, stderr }));
      });
    const noToken = await scrubbed(['SWB_TOKEN'], 'token scrubbed');
    expect(noToken.stderr).toBe('');
    expect(noToken.status).toBe(0);
    const nothing = await scrubbed(['SWB_TOKEN', 'SWB_SESSION', 'SWB_SOCKET', 'SWB_HOME'], 'all scrubbed');
    expect(nothing.stderr).toBe('');
    expect(nothing.status).toBe(0);
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages.map((m) => [m.from, m.text])).toEqual([
      ['rowan', 'token scrubbed'],
      ['rowan', 'all scrubbed'],
    ]);
  });

  it('`swb send --as NAME` speaks as a tokenless participant', async () => {
    const { home, paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const r = await runSwb(['send', '--as', 'script', '@bob', 'from a script'], { home });
    expect(r.status).toBe(0);
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages.map((m) => m.from)).toEqual(['script']);
  });

  it('`swb send --as NAME` for a connected participant fails with SESSION_COLLISION and stores nothing', async () => {
    const { hub, home, paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' });
    await connectClient(paths, { session: 'carol' });
    const r = await runSwb(['send', '--as', 'bob', '@carol', 'pretending'], { home });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/SESSION_COLLISION/);
    expect(hub.store.history({}).items.filter((m) => m.text === 'pretending')).toEqual([]);
  });

  it('a message over the hub\u2019s limit is refused as MESSAGE_TOO_LARGE with its size, however large (not as a frame the hub skipped)', async () => {
    const { home, paths, hub } = await startTestHub();
    await connectClient(paths, { session: 'bob' });
    for (const bytes of [17 * 1024, 300 * 1024]) {
      const r = await runSwb(['send', '@bob'], { home, input: 'x'.repeat(bytes) });
      expect(r.status, `${bytes} bytes`).toBe(1);
      expect(r.stderr).toBe(`swb send: MESSAGE_TOO_LARGE: The message is ${bytes} bytes; the limit is ${16 * 1024}.\n`);
    }
    expect(hub.store.history({}).items).toEqual([]);
  });

  it('a hub that allows larger messages gets them: the limit is the hub\u2019s, from its hello', async () => {
    const { home, paths } = await startTestHub({ limits: { maxMessageBytes: 40 * 1024 } });
    const bob = await connectClient(paths, { session: 'bob' });
    const r = await runSwb(['send', '@bob'], { home, input: 'y'.repeat(30 * 1024) });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages.map((m) => m.text.length)).toEqual([30 * 1024]);
  });
});
