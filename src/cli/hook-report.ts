// `swb hook <event>` as its own small program: an agent starts it at every hook it has (Claude Code at
// each prompt, tool call and stop; Codex and Gemini CLI at theirs), so its start-up is the floor of how
// soon swb can hear of a turn (issue #37). It is bundled alone (scripts/bundle.mjs: dist/hook.mjs) and
// bin/swb.js runs it before loading anything of the CLI: no command table, no zod, no hub client class.
// It reads the hook's JSON (stdin, or Codex's notify argument) within a bound, finds the row it runs in
// (its environment, or its ancestors' when the agent scrubbed *TOKEN* variables), writes hello and one
// request on the hub's socket with the row's token, and exits. For `stop` it prints Claude Code's
// decision when the hub says the row has unread mail. It never fails the agent for swb's sake: any
// problem is said on stderr and the exit status is 0 (2 only for a wrong command line). A caller that
// is not a row (the operator, `--as NAME`) is the CLI's to answer (src/cli/hook.ts): null says so.
// Where it was built, the rows' hooks run native/hook-client.c instead, which does the same fast path
// in about a millisecond and hands everything else (no row identity in its environment, a flag, an
// event it does not know) to this program unchanged.
import { fstatSync, readSync } from 'node:fs';
import { createConnection } from 'node:net';
import { hookPayloadFields } from '../agents/hook-payload-fields.js';
import { HOOK_EVENTS } from '../agents/hook-signal.js';
import { PROTOCOL_VERSION } from '../protocol/limits.js';
import { findRowIdentity } from './row-identity.js';
import { processStartedAt } from '../util/process-start.js';

/** The hook's JSON is read up to this size (the fields swb reads are near its start). */
const MAX_PAYLOAD_BYTES = 1024 * 1024;
/** The hub's answer: Stop's is a mail lookup the agent waits on (Claude's timeout is 30 s); the others only report. */
const STOP_ANSWER_MS = 25_000;
const EVENT_ANSWER_MS = 5000;

export interface HookIo {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** The hook's JSON comes on this file descriptor (0), read synchronously: see readPayload. */
  stdinFd: number;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/**
 * Runs one hook as the row it runs in; resolves with the exit status, or null when this is not a row's
 * hook (flags such as --as, or no row identity here or in the parent processes): the CLI answers those.
 */
export async function runHookReport(io: HookIo): Promise<number | null> {
  // When the agent started this hook (ms epoch): its background hooks may report out of order.
  const startedAt = processStartedAt();
  if (io.argv.some((a) => a.startsWith('-'))) return null;
  const [event, arg, ...extra] = io.argv;
  if (event === undefined || extra.length > 0) {
    io.stderr(`swb: USAGE: expected swb hook <${HOOK_EVENTS.join('|')}> [payload-json]\n`);
    return 2;
  }
  if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
    io.stderr(`swb: USAGE: unknown hook ${JSON.stringify(event)}; the hooks are: ${HOOK_EVENTS.join(', ')}\n`);
    return 2;
  }
  const row = findRowIdentity(io.env, parentHint(io.env));
  const socket = row?.socket ?? io.env.SWB_SOCKET;
  if (!row || !socket) return null;
  // Codex's notify program gets its event as an argument and no stdin: read stdin only without one.
  const payload = arg ?? readPayload(io.stdinFd);
  const request =
    event === 'stop' ? { method: 'hook.stop', params: { startedAt } } : { method: 'hook.event', params: { event, startedAt, ...hookPayloadFields(payload) } };
  try {
    const answer = await ask(socket, { session: row.session, token: row.token }, request, event === 'stop' ? STOP_ANSWER_MS : EVENT_ANSWER_MS);
    if (event === 'stop') {
      const d = answer as { block?: unknown; reason?: unknown } | null;
      if (d && d.block === true && typeof d.reason === 'string') io.stdout(`${JSON.stringify({ decision: 'block', reason: d.reason })}\n`);
    }
  } catch (err) {
    // The agent goes on; say why on stderr (Claude shows it in verbose mode only).
    io.stderr(`swb hook ${event}: ${(err as Error).message}\n`);
  }
  return 0;
}

/**
 * Where to start looking for the row among the processes when the agent scrubbed SWB_TOKEN from the
 * hook's environment: SWB_HOOK_PARENT, the agent's pid, which a hook run in the background passes
 * (Gemini CLI's recipe: by the time this program looks, the shell that started it has exited and its
 * parent is no longer the agent). Taken only beside SWB_SESSION, whose row the found one must be; it
 * reads nothing a process of the same user could not read in /proc itself.
 */
function parentHint(env: NodeJS.ProcessEnv): { ppid: number } | Record<string, never> {
  const pid = Number(env.SWB_HOOK_PARENT);
  return env.SWB_SESSION && Number.isInteger(pid) && pid > 1 ? { ppid: pid } : {};
}

/**
 * The hook's JSON from a pipe or file on `fd`, up to MAX_PAYLOAD_BYTES (the fields swb reads are near
 * its start). Read synchronously: a stream for stdin would load and set up far more than this program
 * needs, and every agent writes the payload and closes the pipe before it waits for the hook (an agent
 * that did not would have the hook killed at its own timeout, as it would any hook). A terminal, or
 * nothing at all, is no payload.
 */
function readPayload(fd: number): string {
  try {
    const st = fstatSync(fd);
    if (!st.isFIFO() && !st.isFile() && !st.isSocket()) return '';
  } catch {
    return '';
  }
  const buf = Buffer.allocUnsafe(MAX_PAYLOAD_BYTES);
  let size = 0;
  try {
    for (let n; size < MAX_PAYLOAD_BYTES && (n = readSync(fd, buf, size, MAX_PAYLOAD_BYTES - size, null)) > 0; ) size += n;
  } catch {
    // EAGAIN (a non-blocking pipe with nothing yet) or a read error: what came is all there is.
  }
  return buf.toString('utf8', 0, size);
}

/**
 * Hello and one request, pipelined in one write (the hub answers a connection's requests in order);
 * resolves with the request's result, rejects with hello's or its error, or when no answer comes in time.
 */
function ask(socketPath: string, who: { session: string; token: string }, request: { method: string; params: Record<string, unknown> }, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    let buffered = '';
    const finish = (err: Error | null, value?: unknown): void => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(value);
    };
    const timer = setTimeout(() => finish(new Error(`the hub at ${socketPath} did not answer ${request.method} within ${timeoutMs / 1000} s`)), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('error', (err: NodeJS.ErrnoException) => finish(new Error(`cannot reach the hub at ${socketPath} (${err.code ?? err.message})`)));
    socket.on('close', () => finish(new Error(`the hub at ${socketPath} closed the connection before answering`)));
    socket.on('data', (text: string) => {
      buffered += text;
      // Only two answers are expected; a line longer than the payload bound means something is wrong.
      if (buffered.length > MAX_PAYLOAD_BYTES) return finish(new Error('the hub answered with an oversized line'));
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let msg: { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          return finish(new Error('the hub answered with a line that is not JSON'));
        }
        if (msg.error) return finish(new Error(`${String(msg.error.code ?? 'ERROR')}: ${String(msg.error.message ?? '')}`));
        if (msg.id === 2) return finish(null, msg.result);
      }
    });
    const hello = { jsonrpc: '2.0', id: 1, method: 'hello', params: { version: PROTOCOL_VERSION, session: who.session, token: who.token, client: 'hook' } };
    const call = { jsonrpc: '2.0', id: 2, method: request.method, params: request.params };
    socket.write(`${JSON.stringify(hello)}\n${JSON.stringify(call)}\n`);
  });
}
