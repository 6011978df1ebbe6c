// What one row runs, from a CLI argument or a config entry. CLI syntax (`swb [ROW ...]`), one argument
// per row:
//   claude                    a known profile name → that profile (its own command)
//   'npm run watch'           anything else → a shell command line (`$SHELL -c`), named after its
//                             first word ("npm"), leading VAR=value and wrappers (env, sudo, ...) skipped
//   'build=npm run watch'     NAME=... gives the name; the rest is a profile name or a command
// The NAME= prefix is recognised whenever the text before the first "=" is a valid handle, so a command
// that starts with an environment assignment needs a name (`w=FOO=1 make`) or `env` (`env FOO=1 make`).
// Names are unique handles: duplicates become name-2, name-3, ...
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { isValidHandle } from '../text/mentions.js';
import type { RowConfig, WakePolicy } from './config-schema.js';
import { RESERVED_ROW_NAMES } from './reserved-row-names.js';

export interface RowSpec {
  /** The row's handle. */
  name: string;
  /** True when the operator chose the name (NAME= or config `name`), false when derived. */
  nameGiven: boolean;
  /** Shell command line; absent when the profile's own command is used. */
  command?: string;
  /** Agent profile id for detection and wake (also inferred from a command's first word). */
  profile?: string;
  cwd?: string;
  env?: Record<string, string>;
  wake?: WakePolicy;
  /** Run in a git worktree of its own (config `worktree`). */
  worktree?: { branch?: string; base?: string };
  /** false: no MCP server or hooks for the agent (config `nativeTools`). */
  nativeTools?: boolean;
}

export type RowArgResult = { ok: true; spec: RowSpec } | { ok: false; problem: string };

const WRAPPERS: ReadonlySet<string> = new Set(['env', 'exec', 'command', 'nohup', 'nice', 'time', 'sudo', 'doas', 'stdbuf']);

export function parseRowArg(arg: string, knownProfiles: readonly string[]): RowArgResult {
  if (arg.includes('\0')) return { ok: false, problem: 'a row argument cannot contain a NUL character' };
  let rest = arg.trim();
  let name: string | undefined;
  const eq = rest.indexOf('=');
  if (eq > 0 && isValidHandle(rest.slice(0, eq))) {
    name = rest.slice(0, eq);
    rest = rest.slice(eq + 1).trim();
    if (RESERVED_ROW_NAMES.has(name)) return { ok: false, problem: `"${name}" cannot be a row name (it is reserved)` };
    if (rest === '') return { ok: false, problem: `"${name}=" needs a profile or a command after "="` };
  }
  if (rest === '') return { ok: false, problem: 'empty row argument (give a profile name or a command)' };
  if (knownProfiles.includes(rest)) return { ok: true, spec: { name: name ?? rest, nameGiven: name !== undefined, profile: rest } };
  const first = firstProgram(rest);
  const profile = first !== undefined && knownProfiles.includes(first) ? first : undefined;
  return {
    ok: true,
    spec: {
      name: name ?? deriveRowName(rest),
      nameGiven: name !== undefined,
      command: rest,
      ...(profile !== undefined && { profile }),
    },
  };
}

/** The basename of the program a command line runs, skipping VAR=value prefixes and common wrappers. */
export function firstProgram(command: string): string | undefined {
  let afterWrapper = false;
  for (const word of shellWords(command)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
    if (afterWrapper && (word.startsWith('-') || /^\d+$/.test(word))) continue; // a wrapper's options
    const base = word.slice(word.lastIndexOf('/') + 1);
    if (base === '') continue;
    if (WRAPPERS.has(base)) {
      afterWrapper = true;
      continue;
    }
    return base;
  }
  return undefined;
}

/** A handle for a command line: its program's basename reduced to [A-Za-z0-9._-], or "row". */
export function deriveRowName(command: string): string {
  const program = firstProgram(command) ?? '';
  const cleaned = program
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+/, '')
    .replace(/-+$/, '')
    .slice(0, 64);
  return cleaned !== '' && isValidHandle(cleaned) ? cleaned : 'row';
}

/** Splits the start of a command line into words (quotes and backslashes honoured, enough for naming). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < command.length && words.length < 16; i++) {
    const c = command[i] ?? '';
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) word += command[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < command.length) {
      word += command[++i];
      inWord = true;
    } else if (/\s/.test(c) || c === ';' || c === '&' || c === '|' || c === '(' || c === ')') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      if (c !== ' ' && c !== '\t' && words.length > 0) break; // the first simple command is enough
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

function withSuffix(name: string, n: number): string {
  const suffix = `-${n}`;
  return name.length + suffix.length > 64 ? `${name.slice(0, 64 - suffix.length)}${suffix}` : `${name}${suffix}`;
}

/**
 * Makes every name unique, in order: the first keeps its name, later duplicates get -2, -3, ... (skipping
 * names another row already has). Reserved names (all, operator) are never handed out.
 */
export function assignUniqueNames<T extends { name: string }>(specs: readonly T[], reserved: Iterable<string> = RESERVED_ROW_NAMES): T[] {
  const originals = new Set(specs.map((s) => s.name));
  const used = new Set(reserved);
  return specs.map((spec) => {
    if (!used.has(spec.name)) {
      used.add(spec.name);
      return spec;
    }
    for (let n = 2; ; n++) {
      const candidate = withSuffix(spec.name, n);
      if (!used.has(candidate) && !originals.has(candidate)) {
        used.add(candidate);
        return { ...spec, name: candidate };
      }
    }
  });
}

/**
 * A config `rows[]` entry as a RowSpec: name derived when absent, `cwd` resolved against the config file's
 * directory ("~" and "~/..." are the home directory).
 */
export function rowSpecFromConfig(row: RowConfig, baseDir: string, knownProfiles: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): RowSpec {
  const inferred = row.profile ?? (row.command !== undefined ? firstProgram(row.command) : undefined);
  const profile = row.profile ?? (inferred !== undefined && knownProfiles.includes(inferred) ? inferred : undefined);
  const name = row.name ?? (row.command !== undefined ? deriveRowName(row.command) : (row.profile ?? 'row'));
  const spec: RowSpec = { name, nameGiven: row.name !== undefined };
  if (row.command !== undefined) spec.command = row.command;
  if (profile !== undefined) spec.profile = profile;
  if (row.cwd !== undefined) spec.cwd = resolveCwd(row.cwd, baseDir, env);
  if (row.env !== undefined) spec.env = { ...row.env };
  if (row.wake !== undefined) spec.wake = row.wake;
  if (row.nativeTools === false) spec.nativeTools = false;
  if (row.worktree !== undefined && row.worktree !== false) spec.worktree = row.worktree === true ? {} : { ...row.worktree };
  return spec;
}

function resolveCwd(cwd: string, baseDir: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir();
  if (cwd === '~') return home;
  if (cwd.startsWith('~/')) return join(home, cwd.slice(2));
  return resolve(baseDir, cwd);
}
