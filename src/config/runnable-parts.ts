// The parts of a config that run something as the operator or reach out on their behalf: rows
// (their commands, profiles, working directories and environment), `worktrees.setup` (a shell
// command) and `worktrees.root` (where git writes new worktrees), `federation` (a server to
// connect to, with credentials files to present) and `notify.command` (a program run for each
// notification). An untrusted config (config-trust.ts) loses exactly
// these; the rest (limits, theme, keys, layout, ...) only shapes swb itself and still applies.
// `notifications` and the rest of `notify` run no command (a bell, OSC 9), so they stay. The description is what the operator
// is shown before trusting: every string in it came from the file, so it passes sanitize.
import { sanitize } from '../text/sanitize.js';
import { shellQuote } from '../util/shell-quote.js';
import type { SwitchboardConfig } from './config-schema.js';

export interface RunnableParts {
  rows: SwitchboardConfig['rows'];
  setup?: string;
  worktreeRoot?: string;
  federation?: NonNullable<SwitchboardConfig['federation']>;
  notifyCommand?: readonly string[];
  /** A listener that serves the operator's rows to a browser (possibly beyond this machine). */
  web?: NonNullable<SwitchboardConfig['web']>;
}

export function runnableParts(config: SwitchboardConfig): RunnableParts {
  return {
    rows: config.rows,
    ...(config.worktrees?.setup !== undefined ? { setup: config.worktrees.setup } : {}),
    ...(config.worktrees?.root !== undefined ? { worktreeRoot: config.worktrees.root } : {}),
    ...(config.federation ? { federation: config.federation } : {}),
    ...(config.notify?.command !== undefined ? { notifyCommand: config.notify.command } : {}),
    ...(config.web ? { web: config.web } : {}),
  };
}

export function hasRunnableParts(parts: RunnableParts): boolean {
  return parts.rows.length > 0 || parts.setup !== undefined || parts.worktreeRoot !== undefined || parts.federation !== undefined || parts.notifyCommand !== undefined || parts.web !== undefined;
}

/** The config as an untrusted file may act: nothing of it runs, connects or chooses where git writes. */
export function withoutRunnableParts(config: SwitchboardConfig): SwitchboardConfig {
  const { federation: _federation, web: _web, worktrees, notify, ...rest } = config;
  const { setup: _setup, root: _root, ...harmless } = worktrees ?? {};
  const { command: _command, ...silent } = notify ?? {};
  return {
    ...rest,
    rows: [],
    ...(worktrees && Object.keys(harmless).length > 0 ? { worktrees: harmless } : {}),
    ...(notify ? { notify: silent } : {}),
  };
}

const shown = (text: string) => sanitize(text, { singleLine: true, maxChars: 300 });
// What the operator is asked to trust is shown whole: a payload past a cut ("npm run dev;" then
// spaces, then the real command) would otherwise be trusted unseen. Bounded by the schema's limits.
const whole = (text: string) => sanitize(text, { singleLine: true, maxChars: 64 * 1024 });

/** One line per thing the file would run, for the operator to judge (sanitized, never cut). */
export function describeRunnableParts(parts: RunnableParts): string[] {
  const lines: string[] = [];
  parts.rows.forEach((row, i) => {
    const what = [
      row.profile !== undefined ? `profile ${row.profile}` : null,
      row.command !== undefined ? `runs: ${row.command}` : null,
      row.cwd !== undefined ? `in ${row.cwd}` : null,
      row.env !== undefined ? `env ${Object.entries(row.env).map(([k, v]) => `${k}=${v}`).join(' ')}` : null,
      row.worktree ? 'in a worktree of its own' : null,
    ].filter((x) => x !== null);
    lines.push(whole(`row ${row.name ?? `rows[${i}]`}: ${what.join('; ')}`));
  });
  if (parts.setup !== undefined) lines.push(whole(`worktrees.setup (a shell command in each new worktree): ${parts.setup}`));
  if (parts.worktreeRoot !== undefined) lines.push(whole(`worktrees.root (where new worktrees are written): ${parts.worktreeRoot}`));
  if (parts.federation) {
    const f = parts.federation;
    const creds = [f.credentials, f.passwordFile, f.tls?.cert, f.tls?.key].filter((x) => x !== undefined);
    lines.push(whole(`federation: connects to ${f.url} as node ${f.node}${creds.length > 0 ? `, presenting ${creds.join(', ')}` : ''}`));
  }
  if (parts.web) lines.push(whole(`web: serves the rows to a browser on ${parts.web.bind ?? '127.0.0.1'}${parts.web.port ? ` port ${parts.web.port}` : ''}${parts.web.start ? ' from the start' : ''}${parts.web.insecure ? ', without TLS (insecure)' : ''}`));
  if (parts.notifyCommand !== undefined) lines.push(whole(`notify.command (run for each notification): ${parts.notifyCommand.map(shellQuote).join(' ')}`));
  return lines;
}

/** "2 rows, worktrees.setup, federation": what was held back, in a few words. */
export function summarizeRunnableParts(parts: RunnableParts): string {
  const n = parts.rows.length;
  return [
    n > 0 ? `${n} row${n === 1 ? '' : 's'}` : null,
    parts.setup !== undefined ? 'worktrees.setup' : null,
    parts.worktreeRoot !== undefined ? 'worktrees.root' : null,
    parts.federation ? 'federation' : null,
    parts.notifyCommand !== undefined ? 'notify.command' : null,
    parts.web ? 'web' : null,
  ]
    .filter((x) => x !== null)
    .join(', ');
}

/** The one line said wherever an untrusted file was held back (the dashboard's notes, a hub's log). */
export function untrustedNote(path: string, parts: RunnableParts): string {
  return shown(`${path} is not trusted, so swb ran nothing it names (${summarizeRunnableParts(parts)}); to run it: swb trust ${shellQuote(path)}`);
}
