// The shared runner for every CLI command: global flags, --help, --json, error printing, exit codes.
import { connectToHub } from '../client/connect.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, type HubClient } from '../client/hub-client.js';
import { resolveRuntimePaths, workspaceFlagProblem } from '../hub/runtime-paths.js';
import { SwbError } from '../protocol/error-codes.js';
import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import { EXIT_FAILED, EXIT_USAGE, UsageError, type CommandContext, type CommandDescriptor, type FlagSpec } from './command.js';
import { parseFlags } from '../util/parse-flags.js';
import { findRowIdentity, type RowIdentity } from './row-identity.js';

export const GLOBAL_FLAGS: FlagSpec[] = [
  { name: 'json', type: 'boolean', description: 'print the result as JSON' },
  { name: 'as', type: 'string', value: 'NAME', description: 'speak as NAME (default: this row, else the operator)' },
  { name: 'workspace', type: 'string', value: 'NAME|DIR', description: 'use the hub of workspace NAME, or of the workspace DIR is in (default: git root or cwd)' },
  { name: 'help', type: 'boolean', description: 'show this help' },
  // wait and ask have a --timeout of their own (how long to wait for mail); their requests' deadlines follow it.
  { name: 'timeout', type: 'number', value: 'SECONDS', description: `give up on an unanswered request after SECONDS (default ${DEFAULT_REQUEST_TIMEOUT_MS / 1000})` },
];

/** The global flags a command takes: its own flag of the same name wins. */
function globalFlagsOf(cmd: CommandDescriptor): FlagSpec[] {
  return GLOBAL_FLAGS.filter((g) => !cmd.flags.some((f) => f.name === g.name));
}

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function helpText(cmd: CommandDescriptor): string {
  const flags = [...cmd.flags, ...globalFlagsOf(cmd).filter((f) => cmd.json !== false || f.name !== 'json')];
  const width = Math.max(...flags.map((f) => f.name.length + (f.value ? f.value.length + 1 : 0))) + 4;
  const lines = [`Usage: swb ${cmd.name}${cmd.usage ? ` ${cmd.usage}` : ''}`, '', cmd.summary, '', 'Options:'];
  for (const f of flags) {
    const left = `--${f.name}${f.value ? ` ${f.value}` : ''}`;
    lines.push(`  ${left.padEnd(width)}${f.description}`);
  }
  if (cmd.details) lines.push('', cmd.details);
  return `${lines.join('\n')}\n`;
}

export async function runCommand(cmd: CommandDescriptor, argv: readonly string[], io: Io): Promise<number> {
  let jsonOut = argv.includes('--json');
  const fail = (code: string, message: string, status: number): number => {
    if (jsonOut) io.stdout(`${JSON.stringify({ error: { code, message } })}\n`);
    else io.stderr(`swb ${cmd.name}: ${code === 'USAGE' ? '' : `${code}: `}${message}\n`);
    if (status === EXIT_USAGE && !jsonOut) io.stderr(`Try: swb ${cmd.name} --help\n`);
    return status;
  };
  let client: HubClient | undefined;
  /** The workspace whose hub a failed lookup asked (named in the error: it may not be the one meant). */
  let reached: { id: string; dir: string; explicit: boolean } | null = null;
  try {
    const { args, flags } = parseFlags(argv, [...cmd.flags, ...globalFlagsOf(cmd)]);
    jsonOut = flags.json === true;
    if (flags.help) {
      io.stdout(helpText(cmd));
      return 0;
    }
    if (cmd.minArgs !== undefined && args.length < cmd.minArgs) throw new UsageError(`expected ${cmd.usage}`);
    if (cmd.maxArgs !== undefined && args.length > cmd.maxArgs) throw new UsageError(`too many arguments; expected ${cmd.usage || 'none'}`);
    const as = flags.as as string | undefined;
    if (as !== undefined && !isValidHandle(as)) throw new UsageError(`--as ${JSON.stringify(as)}: ${HANDLE_HINT}`);
    const workspace = flags.workspace as string | undefined;
    const workspaceProblem = workspace === undefined ? null : workspaceFlagProblem(workspace, io.cwd);
    if (workspaceProblem) throw new UsageError(workspaceProblem);
    const ownTimeout = cmd.flags.some((f) => f.name === 'timeout');
    const timeoutS = ownTimeout ? undefined : (flags.timeout as number | undefined);
    if (timeoutS !== undefined && !(timeoutS > 0)) throw new UsageError('--timeout must be a number of seconds above 0');
    const paths = resolveRuntimePaths({ cwd: io.cwd, env: io.env, ...(workspace ? { workspace } : {}) });
    let results: unknown[] = [];
    const ctx: CommandContext = {
      args,
      flags,
      json: jsonOut,
      env: io.env,
      paths,
      print: (line) => {
        if (!jsonOut) io.stdout(`${line}\n`);
      },
      result: (value) => {
        results.push(value);
      },
      connect: async (opts = {}) => {
        if (client && !client.isClosed) return client;
        // --as names the caller; else the row it runs in (its env, or an ancestor's when an agent
        // scrubbed the variables from its commands); else it is the operator.
        const row = as === undefined ? rowIdentityFor(io.env, workspace !== undefined) : undefined;
        if (as === undefined && !row && io.env.SWB_SESSION) {
          // In a row whose program dropped SWB_TOKEN, and no ancestor holds it: never fall back to
          // speaking as the operator.
          throw new SwbError(
            'UNAUTHENTICATED',
            `SWB_SESSION names row ${JSON.stringify(io.env.SWB_SESSION)} but SWB_TOKEN is not set, so swb cannot speak as that row ` +
              '(the program running this command may strip variables named *TOKEN* from its environment; let SWB_TOKEN through). ' +
              'Outside a row, unset SWB_SESSION or use --as NAME.',
          );
        }
        if (as === 'operator' && insideRow(io.env)) {
          // An agent in a row must not speak as the operator, even though it can read the token file.
          throw new SwbError('UNAUTHENTICATED', 'This command runs inside a swb row, so it may not speak as the operator (--as operator is refused).');
        }
        const identity = as !== undefined ? { session: as } : row ? { session: row.session, token: row.token } : {};
        const socketPath = workspace ? undefined : row?.socket || io.env.SWB_SOCKET || undefined;
        reached = socketPath ? null : { id: paths.workspaceId, dir: paths.workspace, explicit: paths.explicitWorkspace };
        client = await connectToHub({
          paths,
          identity,
          ...(socketPath ? { socketPath } : {}),
          // A row found through its ancestors has the dashboard's hub or none: a hub started from a
          // scrubbed environment would land in another runtime dir and help nobody.
          autoStart: (opts.autoStart ?? true) && (row === undefined || row.from === 'env'),
          subscribe: opts.subscribe ?? false,
          env: io.env,
          ...(opts.server ? { forServer: true } : {}),
          ...(timeoutS !== undefined ? { requestTimeoutMs: timeoutS * 1000 } : {}),
        });
        return client;
      },
      readStdin: (maxBytes) => readAll(io.stdin, maxBytes),
    };
    const status = await cmd.run(ctx);
    if (jsonOut && results.length > 0) io.stdout(`${JSON.stringify(results.length === 1 ? results[0] : results)}\n`);
    results = [];
    return status;
  } catch (err) {
    if (err instanceof UsageError) return fail('USAGE', err.message, EXIT_USAGE);
    if (err instanceof SwbError) return fail(err.code, err.message + (reached && NAMES_MISSING.has(err.code) ? workspaceNote(reached, client?.startedHub === true) : ''), EXIT_FAILED);
    return fail('INTERNAL', err instanceof Error ? err.message : String(err), EXIT_FAILED);
  } finally {
    client?.close();
  }
}

/** Errors that say something is not in the workspace reached: they name it, since it may be the wrong one. */
const NAMES_MISSING: ReadonlySet<string> = new Set(['UNKNOWN_PEER', 'NOT_FOUND']);

function workspaceNote(w: { id: string; dir: string; explicit: boolean }, started: boolean): string {
  const where = w.explicit ? `workspace ${w.id}` : `workspace ${w.id} (${w.dir})`;
  const hint = started
    ? `; this command started that hub (headless): swb kill-server --workspace ${w.explicit ? w.id : w.dir} stops it`
    : '; run it from the workspace you meant, or give --workspace NAME|DIR';
  return ` [asked the hub of ${where}${hint}]`;
}

function readAll(stream: NodeJS.ReadableStream, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer | string) => {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += b.length;
      if (size > maxBytes) {
        reject(new SwbError('MESSAGE_TOO_LARGE', `stdin is longer than ${maxBytes} bytes.`));
        (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
        return;
      }
      chunks.push(b);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', reject);
  });
}

/**
 * The row a command runs in. The ancestors are asked only when the environment looks scrubbed: SWB_SESSION
 * without its token, or no SWB_* variable at all and no --workspace. A caller that chose its hub itself
 * (SWB_HOME or SWB_SOCKET without a session, as test harnesses and scripts do) is left alone.
 */
function rowIdentityFor(env: NodeJS.ProcessEnv, explicitWorkspace: boolean): RowIdentity | undefined {
  if (env.SWB_SESSION) return findRowIdentity(env);
  const chosen = explicitWorkspace || Object.keys(env).some((k) => k.startsWith('SWB_') && env[k]);
  return chosen ? undefined : findRowIdentity(env);
}

/** True when this process runs inside a row: its environment says so, or an ancestor's does. */
function insideRow(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.SWB_SESSION) || findRowIdentity(env) !== undefined;
}
