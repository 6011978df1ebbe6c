import { describe, expect, it } from 'vitest';
import { detectTerminalKind, terminalKindFor, terminalReportFromEnv } from '../../../src/notify/terminal-detect.js';

describe('detectTerminalKind', () => {
  it('knows the terminals by TERM_PROGRAM', () => {
    expect(detectTerminalKind({ termProgram: 'iTerm.app' })).toBe('osc9');
    expect(detectTerminalKind({ termProgram: 'WezTerm' })).toBe('osc9');
    expect(detectTerminalKind({ termProgram: 'ghostty' })).toBe('osc777');
    expect(detectTerminalKind({ termProgram: 'Apple_Terminal' })).toBe('bell');
    expect(detectTerminalKind({ termProgram: 'vscode' })).toBe('bell');
  });
  it('knows them by TERM, and by the variables kitty and Windows Terminal set', () => {
    expect(detectTerminalKind({ term: 'xterm-kitty' })).toBe('osc99');
    expect(detectTerminalKind({ term: 'foot' })).toBe('osc777');
    expect(detectTerminalKind({ term: 'foot-extra' })).toBe('osc777');
    expect(detectTerminalKind({ term: 'xterm-ghostty' })).toBe('osc777');
    expect(detectTerminalKind({ term: 'rxvt-unicode-256color' })).toBe('osc777');
    expect(detectTerminalKind({ term: 'xterm-256color', kittyWindow: true })).toBe('osc99');
    expect(detectTerminalKind({ term: 'xterm-256color', windowsTerminal: true })).toBe('osc9');
  });
  it('rings the bell for an unknown terminal and inside tmux or screen, whatever the outer terminal set', () => {
    expect(detectTerminalKind({})).toBe('bell');
    expect(detectTerminalKind({ term: 'xterm-256color' })).toBe('bell');
    expect(detectTerminalKind({ term: 'tmux-256color', termProgram: 'iTerm.app' })).toBe('bell');
    expect(detectTerminalKind({ term: 'screen-256color', kittyWindow: true })).toBe('bell');
    expect(detectTerminalKind({ termProgram: 'tmux', term: 'xterm-kitty' })).toBe('bell');
  });
  it("trusts the terminal's own XTVERSION answer over the environment (it survives SSH)", () => {
    expect(detectTerminalKind({ term: 'xterm-256color', xtversion: 'kitty(0.35.2)' })).toBe('osc99');
    expect(detectTerminalKind({ term: 'xterm-256color', xtversion: 'WezTerm 20240203-110809-5046fc22' })).toBe('osc9');
    expect(detectTerminalKind({ term: 'xterm-256color', xtversion: 'foot(1.16.2)' })).toBe('osc777');
    expect(detectTerminalKind({ termProgram: 'iTerm.app', xtversion: 'tmux 3.4' })).toBe('bell');
    expect(detectTerminalKind({ term: 'xterm-kitty', xtversion: 'XTerm(390)' })).toBe('osc99');
  });
});

describe('terminalKindFor', () => {
  it('takes a named sequence as given, detects for "auto", and has none for "off"', () => {
    expect(terminalKindFor('osc777', { term: 'xterm-kitty' })).toBe('osc777');
    expect(terminalKindFor('auto', { term: 'xterm-kitty' })).toBe('osc99');
    expect(terminalKindFor('off', { term: 'xterm-kitty' })).toBeNull();
  });
  it('reads the report from an environment', () => {
    expect(terminalReportFromEnv({ TERM: 'xterm-kitty', TERM_PROGRAM: 'x', WT_SESSION: 'id', KITTY_WINDOW_ID: '1', HOME: '/h' })).toEqual({
      term: 'xterm-kitty',
      termProgram: 'x',
      windowsTerminal: true,
      kittyWindow: true,
    });
    expect(terminalReportFromEnv({})).toEqual({});
  });
});
