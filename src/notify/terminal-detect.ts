// Which notification sequence a terminal shows, from what the client reports about it: its
// environment (TERM_PROGRAM, TERM, WT_SESSION, KITTY_WINDOW_ID) and, when the server asked it, the
// terminal's own XTVERSION answer (CSI > q → DCS > | name ST), which survives SSH where the
// environment does not. A pure function of that report; unknown terminals and multiplexers (tmux
// and screen swallow OSC notifications unless told to pass them through) get the bell.
import type { TerminalNotifySetting, TerminalNotifyKind } from '../config/notify-settings.js';

export interface TerminalReport {
  termProgram?: string;
  term?: string;
  /** WT_SESSION is set: Windows Terminal. */
  windowsTerminal?: boolean;
  /** KITTY_WINDOW_ID is set. */
  kittyWindow?: boolean;
  /** The name in the terminal's XTVERSION reply ("kitty(0.35.2)", "WezTerm 20240203", "foot(1.16.2)"). */
  xtversion?: string;
}

/** The report a client's environment gives (the CLI's own, or what a client sends the server). */
export function terminalReportFromEnv(env: NodeJS.ProcessEnv): TerminalReport {
  return {
    ...(env.TERM_PROGRAM ? { termProgram: env.TERM_PROGRAM } : {}),
    ...(env.TERM ? { term: env.TERM } : {}),
    ...(env.WT_SESSION ? { windowsTerminal: true } : {}),
    ...(env.KITTY_WINDOW_ID ? { kittyWindow: true } : {}),
  };
}

/** By name, for XTVERSION replies and TERM_PROGRAM alike (case-insensitive, the start of the name). */
const BY_NAME: ReadonlyArray<[RegExp, TerminalNotifyKind]> = [
  [/^(tmux|screen)/i, 'bell'],
  [/^kitty/i, 'osc99'],
  [/^(wezterm|iterm)/i, 'osc9'],
  [/^(ghostty|foot)/i, 'osc777'],
];

const BY_TERM: ReadonlyArray<[RegExp, TerminalNotifyKind]> = [
  [/^(tmux|screen)/, 'bell'],
  [/^xterm-kitty$/, 'osc99'],
  [/^(xterm-ghostty|foot|rxvt-unicode)/, 'osc777'],
  [/^wezterm$/, 'osc9'],
];

const match = (table: ReadonlyArray<[RegExp, TerminalNotifyKind]>, text: string | undefined) => (text ? table.find(([re]) => re.test(text))?.[1] : undefined);

export function detectTerminalKind(report: TerminalReport): TerminalNotifyKind {
  const answered = match(BY_NAME, report.xtversion?.trim());
  if (answered) return answered;
  // A multiplexer first: inside tmux the outer terminal's variables may still be set.
  if (match(BY_TERM, report.term) === 'bell' || match(BY_NAME, report.termProgram) === 'bell') return 'bell';
  return match(BY_NAME, report.termProgram) ?? match(BY_TERM, report.term) ?? (report.kittyWindow ? 'osc99' : report.windowsTerminal ? 'osc9' : 'bell');
}

/** The kind a setting means for this terminal: the setting itself, detected for "auto", null for "off". */
export function terminalKindFor(setting: TerminalNotifySetting, report: TerminalReport): TerminalNotifyKind | null {
  if (setting === 'off') return null;
  return setting === 'auto' ? detectTerminalKind(report) : setting;
}
