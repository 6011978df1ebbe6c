// A server the launching client started early (`swb server --held --ready-fd 3`, src/client/server-launch.ts
// holdServer): its node starts and loads the server's code while the client is still loading its
// own and checking its command line and the directory's config (issue #33: the client's 40-ms part
// of a cold start then runs beside the server's, not before it). Until the client says go on the
// ready fd, the server touches nothing — no lock, no socket, no file — so a typo on the command line
// or a "no" at the trust question leaves nothing behind: the client closes its end and the server
// exits. The go line carries the flags the client settled on (--config, --workspace, --fresh), and
// the directory to run in. A server bin/swb started beside its client meets it on a socket instead
// (early-gate.ts), with the same lines.
import { closeSync, readSync, writeSync } from 'node:fs';
import { isAbsolute } from 'node:path';

/** What the client said: go with these flags (in `cwd`, when it names one), or nothing (it closed its end: cancelled, or gone). */
export type GateOutcome = { go: true; flags: string[]; cwd?: string } | { go: false } | { bad: string };

/** The client that is waiting for this server to listen: its go line, and one line back. */
export interface LaunchingClient {
  /** Its word: held servers wait for it before they touch anything. */
  word(): Promise<GateOutcome>;
  /** The one line back (ready, or why not); the channel closes after it. */
  say(line: string): void;
}

/** The launching client on the ready fd (a socket pair from holdServer, or a pipe from a hand-made launcher). */
export function clientOnFd(fd: number): LaunchingClient {
  return {
    word: () => waitAtGate(fd),
    say(line) {
      try {
        writeSync(fd, `${line}\n`);
        closeSync(fd);
      } catch {
        // the launcher gave up waiting; it will find the socket
      }
    },
  };
}

/** The go line's size bound: three flags and three paths. */
const MAX_GO_BYTES = 64 * 1024;

/** The server flags a go line may carry, and whether each takes a value. */
const GO_FLAGS: ReadonlyMap<string, boolean> = new Map([
  ['--config', true],
  ['--workspace', true],
  ['--fresh', false],
]);

/**
 * Waits for the launching client's word on `fd` (the ready fd: a socket pair, which carries the
 * ready line back the other way). A blocking read: the server has nothing else to do until then,
 * and its signals keep their default actions (no handler is installed yet).
 */
export async function waitAtGate(fd: number): Promise<GateOutcome> {
  const line = new GoLineReader();
  const buf = Buffer.allocUnsafe(4096);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buf, 0, buf.length, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // A non-blocking socket (libuv hands the child a blocking one; a hand-made launcher may not).
      if (code === 'EAGAIN') {
        await new Promise((resolve) => setTimeout(resolve, 5));
        continue;
      }
      if (code === 'EINTR') continue;
      return { go: false };
    }
    const outcome = n === 0 ? line.ended() : line.add(Buffer.from(buf.subarray(0, n)));
    if (outcome) return outcome;
  }
}

/** The go line as it comes in pieces, bounded: the ready fd's reads or a socket's data events (early-gate.ts). */
export class GoLineReader {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  /** Takes `chunk` (its own: kept as it is); the outcome once the line is whole or too long, else undefined. */
  add(chunk: Buffer): GateOutcome | undefined {
    const at = chunk.indexOf(0x0a);
    this.chunks.push(at === -1 ? chunk : chunk.subarray(0, at));
    this.size += at === -1 ? chunk.length : at;
    if (this.size > MAX_GO_BYTES) return { bad: `the go line is longer than ${MAX_GO_BYTES} bytes` };
    return at === -1 ? undefined : parseGoLine(Buffer.concat(this.chunks).toString('utf8'));
  }

  /** The client closed its end: nothing said (cancelled, or gone), or half a line. */
  ended(): GateOutcome {
    return this.size === 0 ? { go: false } : { bad: 'the go line ended without a newline' };
  }
}

/** `{"go":true,"flags":[...]}` with only the flags a client may settle; anything else is refused whole. */
export function parseGoLine(line: string): GateOutcome {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return { bad: 'the go line is not JSON' };
  }
  const o = v as { go?: unknown; flags?: unknown; cwd?: unknown };
  if (typeof v !== 'object' || v === null || o.go !== true) return { bad: 'the go line does not say go' };
  if (!Array.isArray(o.flags) || !o.flags.every((f): f is string => typeof f === 'string')) return { bad: 'the go line has no list of flags' };
  const cwd = o.cwd;
  if (cwd !== undefined && (typeof cwd !== 'string' || !isAbsolute(cwd) || cwd.includes('\0'))) return { bad: 'the go line\'s cwd is not an absolute path' };
  const flags = o.flags;
  for (let i = 0; i < flags.length; i++) {
    const takesValue = GO_FLAGS.get(flags[i]!);
    if (takesValue === undefined) return { bad: `the go line carries ${JSON.stringify(flags[i]!.slice(0, 40))}, not a flag a client settles` };
    if (takesValue && (++i >= flags.length || flags[i] === '')) return { bad: `${flags[i - 1]} in the go line has no value` };
  }
  return cwd === undefined ? { go: true, flags } : { go: true, flags, cwd };
}
