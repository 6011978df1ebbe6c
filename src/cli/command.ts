// A CLI command is one descriptor (STYLE §7): name, usage, flags, run. The shared runner
// (run-command.ts) parses flags, prints --help, usage errors, --json output and error lines.
import type { HubClient } from '../client/hub-client.js';
import type { RuntimePaths } from '../hub/runtime-paths.js';
import type { FlagSpec, FlagValues } from '../util/parse-flags.js';

// The flag vocabulary and the usage error live with the flag parser, below the CLI: the dashboard's
// argv and the server's are parsed with them too.
export { UsageError, type FlagSpec, type FlagType, type FlagValues } from '../util/parse-flags.js';

export interface CommandContext {
  args: string[];
  flags: FlagValues;
  json: boolean;
  env: NodeJS.ProcessEnv;
  paths: RuntimePaths;
  /** Human output (stdout). */
  print(line: string): void;
  /** Machine output for --json (printed once, as one JSON document). */
  result(value: unknown): void;
  /** Connects as this caller: the row in SWB_SESSION/SWB_TOKEN, `--as NAME`, or the operator. */
  /** `server`: the command asks the workspace server, so nothing listening is NO_SERVER (ConnectOptions.forServer). */
  connect(opts?: { subscribe?: boolean; autoStart?: boolean; server?: boolean }): Promise<HubClient>;
  readStdin(maxBytes: number): Promise<string>;
}

export interface CommandDescriptor {
  name: string;
  summary: string;
  /** Usage line after `swb NAME`, e.g. "@peer [@peer ...] TEXT". */
  usage: string;
  flags: FlagSpec[];
  /** Longer help text, printed under the flags. */
  details?: string;
  minArgs?: number;
  maxArgs?: number;
  /** False for commands that print no data (no --json flag advertised). */
  json?: boolean;
  run(ctx: CommandContext): Promise<number>;
}

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
