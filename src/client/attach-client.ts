// The thin client: `swb [ROW ...]` and `swb attach`. The server draws the whole dashboard, and
// where it can it reads and writes this terminal itself (server/client-tty.ts, as tmux's server
// does): the client then only sets raw mode, sends the size on SIGWINCH and waits for its BYE.
// Otherwise it is a pipe — the raw terminal to the server's socket and back. Nothing of the rows
// lives here, so closing the terminal, losing SSH or SIGKILLing this process leaves every row
// running. Loads no React, no Ink, no SQLite: it starts fast.
import { fstatSync } from 'node:fs';
import type { Socket } from 'node:net';
import { printTopLevelHelp } from '../config/top-level-help.js';
import { sleep, systemClock } from '../util/clock.js';
import { packageVersion } from '../util/package-root.js';
import { resolveRuntimePaths } from '../hub/runtime-paths.js';
import {
  CLIENT_WIRE,
  encodeFrame,
  encodeJsonFrame,
  FRAME,
  FrameDecoder,
  FrameError,
  FROM_SERVER,
  type ByeFrame,
  type HelloFrame,
  type WelcomeFrame,
} from '../protocol/client-wire.js';
import { SwbError } from '../protocol/error-codes.js';
import { terminalReportFromEnv } from '../notify/terminal-detect.js';
import { checkSocketPath } from './trusted-socket.js';
import { queryBoundFromEnv, TerminalQuery, type TerminalAnswer } from './terminal-query.js';
import { holdServer, launchProblem, LaunchError } from './server-launch.js';
import { connectTrusted, headStart, type AttachOptions, type EarlyServer, type HeadStart, type SplitArgs } from './dashboard-head-start.js';
import { startMark } from '../util/start-trace.js';

/** What a terminal needs back if the server could not restore it (it vanished mid-frame). */
const RESTORE_TERMINAL =
  '\x1b[0m\x1b[?25h\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[<u\x1b[?1049l';

/** The thin client, after its head start (dashboard-head-start.ts; run here when the caller did not). */
export async function runAttach(given: AttachOptions, start?: HeadStart): Promise<number> {
  const head = start ?? (await headStart(given));
  if ('problem' in head) return fail(2, `swb: ${head.problem}\nTry: swb --help`);
  const { o, split, early } = head;
  // Whatever ends this client before it uses the server it found (or held) lets it go.
  const letGo = () => {
    if (early && 'held' in early) early.held.cancel();
    if (early && 'socket' in early) early.socket.destroy();
  };
  if (head.help) {
    letGo();
    printTopLevelHelp();
    return 0;
  }
  // The command line is checked here, before any server starts: `--help` prints the help, and a
  // ROW that is a typo (`swb sned @x hi`) is a usage error, terminal or not (a server held meanwhile
  // is let go: it has touched nothing).
  if (split.hello.some((a) => !a.startsWith('-'))) {
    const { checkDashboardArgs } = await import('../app/dashboard-args.js');
    const checked = await checkDashboardArgs(split.hello, o.env, o.cwd);
    if ('usage' in checked) {
      letGo();
      return fail(2, `swb: USAGE: ${checked.usage}${/Try: swb --help$/.test(checked.usage) ? '' : '\nTry: swb --help'}`);
    }
    startMark('dashboard args checked');
  }
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    letGo();
    return fail(2, 'swb: the dashboard needs a terminal (stdin and stdout must be a TTY); the mail commands work anywhere (swb --help).');
  }
  let socket: Socket;
  try {
    socket = await openServer(o, split, early);
  } catch (err) {
    letGo();
    if (err instanceof LaunchError) return fail(1, err.message.startsWith('swb') ? err.message : `swb: ${err.message}`);
    if (err instanceof SwbError) return fail(1, `swb: ${err.code}: ${err.message}`);
    throw err;
  }
  startMark('connected');
  return pipe(socket, o, split);
}

/** The server's socket: the one the head start connected, or this workspace's server, started (or let go from its gate) when none runs. */
async function openServer(o: AttachOptions, split: SplitArgs, early: EarlyServer | null): Promise<Socket> {
  if (early && 'error' in early) throw early.error;
  if (early && 'refused' in early) throw new SwbError(early.refused.code as never, early.refused.message);
  if (early && 'socket' in early) return early.socket;
  const paths = resolveRuntimePaths({ cwd: o.cwd, env: o.env, ...(split.workspace ? { workspace: split.workspace } : {}) });
  const path = paths.serverSocketPath;
  if (!early) {
    checkSocketPath(path);
    try {
      return await connectTrusted(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (err instanceof SwbError || (code !== 'ENOENT' && code !== 'ECONNREFUSED')) throw err;
      if (!o.create) throw new SwbError('NO_SERVER', `No swb server runs for workspace ${paths.workspaceId}; swb starts one.`);
    }
  }
  // About to start a server: a config that came with this directory is asked about first (the
  // server holds back an untrusted file's rows itself; this is where the operator can say yes).
  const { askToTrustConfig } = await import('./config-trust-prompt.js');
  const trust = await askToTrustConfig({
    cwd: o.cwd,
    env: o.env,
    ...(split.config !== undefined ? { configFlag: split.config } : {}),
    write: (text) => process.stderr.write(text),
    interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY) && !o.env.CI,
  });
  startMark('config trust checked');
  if (trust === 'interrupted') throw new LaunchError('swb: interrupted at the question; nothing was started.');
  const flags = [
    ...(split.config ? ['--config', split.config] : []),
    ...(split.workspace ? ['--workspace', split.workspace] : []),
    ...(split.fresh ? ['--fresh'] : []),
  ];
  try {
    startMark('launching the server');
    const server = early ? early.held : holdServer({ paths, cwd: o.cwd, env: o.env });
    const outcome = await server.go(flags);
    if (!outcome.ok) throw launchProblem(outcome);
    startMark('the server listens');
  } catch (err) {
    // Another swb started the server at the same moment: the workspace lock let it win; use it.
    if (!(err instanceof SwbError && err.code === 'HUB_RUNNING')) throw err;
  }
  const deadline = systemClock.now() + 10_000;
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    try {
      checkSocketPath(path);
      return await connectTrusted(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (err instanceof SwbError || (code !== 'ENOENT' && code !== 'ECONNREFUSED')) throw err;
      if (systemClock.now() > deadline) {
        throw new SwbError('NO_SERVER', `No swb server came up for workspace ${paths.workspaceId}: another one is starting or stopping there (see server.out in ${paths.runDir}); try again in a moment.`);
      }
      await sleep(delay);
    }
  }
}

/**
 * Whether the server may take this terminal over: stdin and stdout are the same one, and the
 * operator did not turn it off (`SWB_DIRECT_TTY=0`, for a terminal the server cannot reach).
 */
function offerTty(env: NodeJS.ProcessEnv): boolean {
  if (env.SWB_DIRECT_TTY === '0') return false;
  try {
    const a = fstatSync(0);
    const b = fstatSync(1);
    return a.isCharacterDevice() && a.rdev === b.rdev && a.ino === b.ino;
  } catch {
    return false;
  }
}

async function pipe(socket: Socket, o: AttachOptions, split: SplitArgs): Promise<number> {
  const stdin = process.stdin;
  const stdout = process.stdout;
  const size = () => ({ cols: stdout.columns || 80, rows: stdout.rows || 24 });
  // Raw before the server can read a key: it may read this terminal itself from its WELCOME on.
  const wasRaw = stdin.isRaw;
  stdin.setRawMode(true);

  const onInput = (chunk: Buffer) => socket.write(encodeFrame(FRAME.INPUT, chunk));
  // Told to stop (kill -TSTP; the terminal is raw, so not Ctrl-Z) while the server holds the
  // terminal: stopping would hand it to the shell while the server still reads it. Leave instead,
  // as the detach key does; the rows run on and `swb attach` comes back.
  const suspend = () => socket.write(encodeFrame(FRAME.DETACH, ''));
  const onResize = () => socket.write(encodeJsonFrame(FRAME.RESIZE, size()));
  stdout.on('resize', onResize);
  // Keys wait in the terminal until WELCOME says who reads them: the server, or this relay.
  const relayInput = () => {
    stdin.on('data', onInput);
    stdin.resume();
  };

  // The terminal's own name (XTVERSION), for its notifications (terminal-query.ts). Asked now and
  // not waited for: HELLO goes at once, the keys typed meanwhile go on as INPUT behind it, and the
  // answer follows in a TERMINAL frame, which also hands a terminal the server holds its keys.
  let welcome: WelcomeFrame | null = null;
  let handedOver = false;
  let answer: TerminalAnswer | null = null;
  const handOver = () => {
    if (handedOver || welcome === null || (query !== null && answer === null)) return;
    handedOver = true;
    if (answer !== null && welcome.terminalQuery) socket.write(encodeJsonFrame(FRAME.TERMINAL, answer.xtversion !== undefined ? { xtversion: answer.xtversion } : {}));
    if (!welcome.directTty) relayInput();
  };
  const queryMs = queryBoundFromEnv(o.env);
  const query =
    stdout.isTTY && o.env.SWB_TERMINAL_QUERY !== '0'
      ? new TerminalQuery({
          input: stdin,
          output: stdout,
          timeoutMs: queryMs,
          onKeys: onInput,
          onDone: (a) => {
            answer = a;
            startMark(a.answered ? 'terminal answered' : 'terminal query ended unanswered');
            handOver();
          },
        })
      : null;
  // The query first, in the same turn as HELLO: it reaches the terminal before anything the
  // server draws there, and no key is read (to go out as INPUT) before HELLO is on its way.
  query?.start();
  const terminal = terminalReportFromEnv(o.env);
  const hello: HelloFrame = {
    wire: CLIENT_WIRE,
    version: packageVersion(),
    ...size(),
    cwd: o.cwd,
    args: split.hello,
    directTty: offerTty(o.env),
    terminal,
    ...(query ? { terminalQueryMs: queryMs } : {}),
  };
  socket.write(encodeJsonFrame(FRAME.HELLO, hello));
  startMark('hello sent');

  let bye: ByeFrame | null = null;
  const decoder = new FrameDecoder(FROM_SERVER);
  socket.on('data', (chunk: Buffer) => {
    try {
      for (const f of decoder.push(chunk)) {
        if (f.type === FRAME.WELCOME) {
          if (welcome !== null) continue;
          welcome = parseWelcome(f.payload);
          if (welcome.directTty) process.on('SIGTSTP', suspend);
          // An older server takes no TERMINAL, and one that holds the terminal reads it already.
          if (!welcome.terminalQuery && welcome.directTty) query?.stop();
          handOver();
        } else if (f.type === FRAME.OUTPUT) {
          // A terminal slower than the server: stop reading the socket until it catches up (the
          // server then drops and later redraws instead of queueing without end).
          if (!stdout.write(f.payload)) {
            socket.pause();
            stdout.once('drain', () => socket.resume());
          }
        } else if (f.type === FRAME.BYE) {
          bye = parseBye(f.payload);
        }
      }
    } catch (err) {
      if (!(err instanceof FrameError)) throw err;
      bye = { reason: 'refused', code: 'BAD_FRAME', message: `the server sent a bad frame: ${err.message}` };
      socket.destroy();
    }
  });

  return new Promise<number>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      query?.dispose();
      stdin.off('data', onInput);
      stdout.off('resize', onResize);
      process.off('SIGTSTP', suspend);
      process.off('SIGHUP', hangup);
      process.off('SIGTERM', hangup);
      stdin.setRawMode(wasRaw);
      stdin.pause();
      const b = bye as ByeFrame | null;
      // The server restores what it set; after a crash nobody did.
      if (!b || b.reason !== 'detached') stdout.write(RESTORE_TERMINAL);
      if (!b) {
        process.stderr.write('swb: the connection to the server was lost (it may have crashed: see server.log in the runtime dir); swb attach tries again.\n');
        resolve(1);
      } else if (b.reason === 'refused') {
        process.stderr.write(`swb: ${b.code ?? 'REFUSED'}: ${b.message}\n`);
        resolve(b.code === 'USAGE' ? 2 : 1);
      } else {
        process.stderr.write(`swb: ${b.message}\n`);
        resolve(0);
      }
    };
    // The terminal went away: nothing to restore, just leave (the rows run on).
    const hangup = () => socket.destroy();
    process.on('SIGHUP', hangup);
    process.on('SIGTERM', hangup);
    socket.on('close', finish);
    socket.on('error', () => socket.destroy());
  });
}

/** What a WELCOME says this client does next (an unreadable one: relay, and send no TERMINAL). */
function parseWelcome(payload: Buffer): WelcomeFrame {
  try {
    const v = JSON.parse(payload.toString('utf8')) as Partial<WelcomeFrame>;
    return { wire: CLIENT_WIRE, version: '', pid: 0, directTty: v.directTty === true, terminalQuery: v.terminalQuery === true };
  } catch {
    return { wire: CLIENT_WIRE, version: '', pid: 0, directTty: false, terminalQuery: false };
  }
}

function parseBye(payload: Buffer): ByeFrame {
  try {
    const v = JSON.parse(payload.toString('utf8')) as Partial<ByeFrame>;
    const reason = v.reason === 'detached' || v.reason === 'stopped' || v.reason === 'refused' ? v.reason : 'refused';
    const message = typeof v.message === 'string' ? v.message.replace(/[\x00-\x1f\x7f-\x9f]/g, ' ').slice(0, 500) : 'the server ended this client';
    const code = typeof v.code === 'string' && /^[A-Z_]{1,32}$/.test(v.code) ? v.code : undefined;
    return { reason, message, ...(code ? { code } : {}) };
  } catch {
    return { reason: 'refused', message: 'the server ended this client' };
  }
}

function fail(status: number, message: string): number {
  process.stderr.write(`${message}\n`);
  return status;
}
