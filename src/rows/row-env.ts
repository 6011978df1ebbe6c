// The environment a row's program starts with: the caller's environment minus variables that
// describe *another* terminal or session, the row's own extras, then what every row must have
// (its terminal type, its mail identity, and the running swb first on PATH).
import { delimiter } from 'node:path';

export interface RowIdentity {
  /** Hub socket path (SWB_SOCKET). */
  socket: string;
  /** The row's handle (SWB_SESSION). */
  session: string;
  /** Secret for this row incarnation (SWB_TOKEN). */
  token: string;
}

export interface RowEnvOptions {
  /** Environment to start from; defaults to process.env. */
  base?: NodeJS.ProcessEnv;
  /** The row's own variables (from its spec); `undefined` removes a variable. */
  extra?: Readonly<Record<string, string | undefined>>;
  identity?: RowIdentity;
  /** Directory holding the running swb's `swb`; prepended to PATH. */
  binDir?: string;
}

/** Variables that belong to the terminal or multiplexer swb itself runs in, not to the row. */
const FOREIGN_VARIABLES = [
  'TMUX',
  'TMUX_PANE',
  'STY',
  'WINDOW',
  'WINDOWID',
  'TERMCAP',
  'COLUMNS',
  'LINES',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'TERM_SESSION_ID',
  'ITERM_SESSION_ID',
  'KITTY_WINDOW_ID',
  'WEZTERM_PANE',
  'ZELLIJ',
  'ZELLIJ_SESSION_NAME',
  'ZELLIJ_PANE_ID',
  'SWB_SOCKET',
  'SWB_SESSION',
  'SWB_TOKEN',
];

export function buildRowEnv(options: RowEnvOptions = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.base ?? process.env)) {
    if (value !== undefined) env[key] = value;
  }
  for (const key of FOREIGN_VARIABLES) delete env[key];
  for (const [key, value] of Object.entries(options.extra ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  if (options.identity !== undefined) {
    env.SWB_SOCKET = options.identity.socket;
    env.SWB_SESSION = options.identity.session;
    env.SWB_TOKEN = options.identity.token;
  }
  if (options.binDir !== undefined && options.binDir !== '') {
    const rest = (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '' && dir !== options.binDir);
    env.PATH = [options.binDir, ...rest].join(delimiter);
  }
  return env;
}
