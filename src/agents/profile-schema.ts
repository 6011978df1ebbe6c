// The one schema for agent profile files (src/agents/profiles/*.json and user overrides).
// A profile is data: how to start the agent, how to find its input line, which screen rules map to
// which state, its interrupt key and its fixed wake line. Parsing is strict (unknown fields are
// rejected), regexes are compiled once here, and every error names the file and, inside a rule, the rule id.
import {
  SchemaError,
  array,
  bool,
  int,
  literal,
  object,
  optional,
  record,
  str,
  union,
  type Schema,
} from '../util/schema.js';

export const AGENT_STATES = ['busy', 'idle', 'waiting', 'exited', 'unknown'] as const;
export type AgentState = (typeof AGENT_STATES)[number];

/** The profile format this engine reads. A file declares `"format": 1`. */
export const PROFILE_FORMAT = 1;

export const PROFILE_LIMITS = {
  rules: 64,
  dialogs: 16,
  /** Nesting depth of all/any/not gates inside one matcher tree. */
  gateDepth: 6,
  /** Matcher nodes (leaves and gates) in one rule or dialog marker. */
  matchersPerRule: 32,
  regexLength: 512,
  containsLength: 200,
  regionLines: 200,
  fileBytes: 256 * 1024,
} as const;

export type Region =
  | { kind: 'bottom'; lines: number }
  | { kind: 'abovePrompt'; lines: number }
  | { kind: 'title' }
  | { kind: 'screen' }
  /** The row the cursor is on (one line, possibly blank): line-oriented programs such as shells. */
  | { kind: 'cursorLine' };

/** A compiled matcher tree. `contains` is case-insensitive; regexes always carry the `u` flag. */
export type Matcher =
  | { kind: 'contains'; needles: string[] }
  | { kind: 'regex'; re: RegExp }
  | { kind: 'lineRegex'; re: RegExp }
  | { kind: 'all'; of: Matcher[] }
  | { kind: 'any'; of: Matcher[] }
  | { kind: 'not'; of: Matcher };

export interface Rule {
  id: string;
  state: AgentState;
  priority: number;
  region: Region;
  match: Matcher;
  description?: string;
}

export interface DialogMarker {
  id: string;
  region: Region;
  match: Matcher;
}

/**
 * How the cursor must relate to the input line: `required` visible and on it; `onLine` on it, shown or
 * hidden (TUIs that hide the terminal cursor but keep it at the insertion point, e.g. Claude Code);
 * `ifVisible` on it when shown, anything when hidden; `ignore` no check.
 */
export type CursorCheck = 'required' | 'onLine' | 'ifVisible' | 'ignore';

export interface PromptSpec {
  /** Matches the input line; the end of the match is where the typed input begins. */
  line: RegExp;
  /** Stripped from the end of the input text (e.g. a right box border). */
  end?: RegExp;
  /** Only the bottom N non-empty lines are searched for the input line (bottom-most match wins). */
  searchLines: number;
  /** Line-oriented programs (shells, aider): the input line can only be the cursor line. */
  atCursor: boolean;
  /** The border line directly above the input line, if the agent draws a box (used by `abovePrompt`). */
  boxTop?: RegExp;
  /** Only a line right below a `boxTop` line is the input line (menus use the same `❯` glyph). */
  requireBoxTop: boolean;
  cursor: CursorCheck;
  /** Input text that is a placeholder, not a draft (tested against the whole trimmed input). */
  placeholder?: RegExp;
  /** Dim characters on the input line are placeholder or ghost suggestion, never a draft. */
  dimIsPlaceholder: boolean;
  /** The prompt only exists on the normal screen: with a full-screen program up (vim, less) it is not free. */
  normalScreenOnly: boolean;
  /** The prompt is free only while the row's program itself has the terminal (no foreground job: a shell). */
  noForegroundJob: boolean;
}

/**
 * How an agent resumes its own conversation after its row is relaunched (profile data, not code).
 * `{id}` in the arguments is the row's session id. The id is either minted by swb before the first
 * launch and given with `launchArgs` (Claude Code's --session-id), or discovered afterwards from a
 * file the agent keeps open (Codex's rollout file): `openFile` is matched against the paths the
 * row's processes hold open, and its `id` group is the session id.
 */
export interface ResumeRecipe {
  /** Appended to the row's argv on its first launch (needs `mint`). */
  launchArgs: string[];
  /** Appended to the row's argv (in place of launchArgs) to resume. */
  resumeArgs: string[];
  mint: boolean;
  openFile?: RegExp;
}

/**
 * How a row hands its agent swb's own tools without touching the user's config files: files swb
 * writes per row (JSON; `{swb}` in their strings is the row's swb launcher) and the arguments that
 * point the agent at them (`{file:NAME}` is the path of file NAME). Claude Code: an MCP config
 * (--mcp-config) and settings (--settings) holding the Stop hook and the allow rule for mcp__swb__*.
 */
export interface NativeRecipe {
  launchArgs: string[];
  files: Record<string, unknown>;
}

export interface AgentProfile {
  id: string;
  version: string;
  displayName: string;
  /** Default command: an argv array, or a shell line run with `sh -c`. */
  command: { argv: string[] } | { shell: string };
  match: { processNames: string[]; title?: RegExp };
  quietMs: number;
  interruptKey: string;
  wakeLine: string;
  wakeSubmit: string;
  /** Pause between typing the wake line and the submit key (TUIs treat an instant Enter as paste). */
  submitDelayMs: number;
  prompt?: PromptSpec;
  resume?: ResumeRecipe;
  native?: NativeRecipe;
  dialogs: DialogMarker[];
  /** Sorted by priority, highest first; ties keep file order. */
  rules: Rule[];
  /** Where the profile came from: `bundled:<file>` or the user file path. */
  source: string;
}

export class ProfileError extends Error {
  constructor(
    readonly file: string,
    readonly ruleId: string | undefined,
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${file}: ${ruleId !== undefined ? `rule "${ruleId}": ` : ''}${path || '(root)'}: ${problem}`);
    this.name = 'ProfileError';
  }
}

const ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const REGEX_FLAGS = /^[ims]{0,3}$/;
// Control characters (C0, DEL, C1) other than none: a wake line must be plain printable text.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

function compileRegex(source: string, flags: string, path: string): RegExp {
  if (source.length > PROFILE_LIMITS.regexLength)
    throw new SchemaError(path, `regex is longer than ${PROFILE_LIMITS.regexLength} characters`);
  if (!REGEX_FLAGS.test(flags) || new Set(flags).size !== flags.length)
    throw new SchemaError(path, 'flags may only combine "i", "m" and "s"');
  try {
    return new RegExp(source, `${flags}u`);
  } catch (err) {
    throw new SchemaError(path, `invalid regular expression: ${(err as Error).message}`);
  }
}

const regexString: Schema<string> = str({ min: 1, max: PROFILE_LIMITS.regexLength });
const regexField =
  (flagsOk = true): Schema<RegExp> =>
  (v, p) => {
    if (typeof v === 'string') return compileRegex(regexString(v, p), '', p);
    if (flagsOk && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const o = object({ source: regexString, flags: str({ max: 3 }) })(v, p);
      return compileRegex(o.source, o.flags, p);
    }
    throw new SchemaError(p, 'expected a regex string or {"source", "flags"}');
  };

const regionSchema: Schema<Region> = (v, p) => {
  const kind = typeof v === 'object' && v !== null ? (v as { kind?: unknown }).kind : undefined;
  const lines = int({ min: 1, max: PROFILE_LIMITS.regionLines });
  switch (kind) {
    case 'bottom':
      return object({ kind: literal('bottom'), lines })(v, p);
    case 'abovePrompt':
      return object({ kind: literal('abovePrompt'), lines })(v, p);
    case 'title':
      return object({ kind: literal('title') })(v, p);
    case 'screen':
      return object({ kind: literal('screen') })(v, p);
    case 'cursorLine':
      return object({ kind: literal('cursorLine') })(v, p);
    default:
      throw new SchemaError(p ? `${p}.kind` : 'kind', 'must be one of "bottom", "abovePrompt", "title", "screen", "cursorLine"');
  }
};

const MATCHER_KEYS = ['contains', 'regex', 'lineRegex', 'all', 'any', 'not'] as const;

function matcherSchema(counter: { n: number }, depth: number): Schema<Matcher> {
  return (v, p) => {
    counter.n += 1;
    if (counter.n > PROFILE_LIMITS.matchersPerRule)
      throw new SchemaError(p, `too many matchers (at most ${PROFILE_LIMITS.matchersPerRule} per rule)`);
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new SchemaError(p, `expected a matcher object with one of: ${MATCHER_KEYS.join(', ')}`);
    const keys = Object.keys(v);
    const input = v as Record<string, unknown>;
    const kind = keys.find((k) => (MATCHER_KEYS as readonly string[]).includes(k));
    if (kind === undefined)
      throw new SchemaError(p, `a matcher needs one of: ${MATCHER_KEYS.join(', ')}`);
    const allowed = kind === 'regex' || kind === 'lineRegex' ? [kind, 'flags'] : [kind];
    for (const k of keys) {
      if (!allowed.includes(k))
        throw new SchemaError(`${p}.${k}`, `unexpected field next to "${kind}" (one matcher per object; use "all" to combine)`);
    }
    const at = `${p}.${kind}`;
    const gate = (): Schema<Matcher> => {
      if (depth + 1 > PROFILE_LIMITS.gateDepth)
        throw new SchemaError(at, `gates nest deeper than ${PROFILE_LIMITS.gateDepth}`);
      return matcherSchema(counter, depth + 1);
    };
    switch (kind) {
      case 'contains': {
        const needle = str({ min: 1, max: PROFILE_LIMITS.containsLength });
        const raw = input.contains;
        const needles = Array.isArray(raw) ? array(needle, { min: 1, max: 8 })(raw, at) : [needle(raw, at)];
        return { kind: 'contains', needles: needles.map((n) => n.toLowerCase()) };
      }
      case 'regex':
      case 'lineRegex': {
        const flags = input.flags === undefined ? '' : str({ max: 3 })(input.flags, `${p}.flags`);
        return { kind, re: compileRegex(regexString(input[kind], at), flags, at) };
      }
      case 'all':
      case 'any':
        return { kind, of: array(gate(), { min: 1, max: PROFILE_LIMITS.matchersPerRule })(input[kind], at) };
      case 'not':
        return { kind: 'not', of: gate()(input.not, at) };
      default:
        throw new SchemaError(p, 'unreachable');
    }
  };
}

// Built per rule: the matcher counter must start at zero for each rule.
const ruleSchema: Schema<Rule> = (v, p) => {
  const r = object({
    id: str({ min: 1, max: 64, pattern: /^[A-Za-z0-9_.-]+$/, patternHint: 'letters, digits, "_", "." or "-"' }),
    state: literal(...AGENT_STATES),
    priority: int({ min: 0, max: 100_000 }),
    description: optional(str({ max: 300 })),
    region: regionSchema,
    match: matcherSchema({ n: 0 }, 0),
  })(v, p);
  return r;
};

const dialogSchema: Schema<DialogMarker> = (v, p) =>
  object({
    id: str({ min: 1, max: 64, pattern: /^[A-Za-z0-9_.-]+$/, patternHint: 'letters, digits, "_", "." or "-"' }),
    region: regionSchema,
    match: matcherSchema({ n: 0 }, 0),
  })(v, p);

const promptSchema: Schema<PromptSpec> = (v, p) => {
  const o = object({
    line: regexField(),
    end: optional(regexField()),
    searchLines: optional(int({ min: 1, max: PROFILE_LIMITS.regionLines })),
    atCursor: optional(bool),
    boxTop: optional(regexField()),
    requireBoxTop: optional(bool),
    cursor: optional(literal('required', 'onLine', 'ifVisible', 'ignore')),
    placeholder: optional(regexField()),
    dimIsPlaceholder: optional(bool),
    normalScreenOnly: optional(bool),
    noForegroundJob: optional(bool),
  })(v, p);
  const spec: PromptSpec = {
    line: o.line,
    searchLines: o.searchLines ?? 12,
    atCursor: o.atCursor ?? false,
    requireBoxTop: o.requireBoxTop ?? false,
    cursor: o.cursor ?? 'required',
    dimIsPlaceholder: o.dimIsPlaceholder ?? true,
    normalScreenOnly: o.normalScreenOnly ?? false,
    noForegroundJob: o.noForegroundJob ?? false,
  };
  if (spec.requireBoxTop && !o.boxTop) throw new SchemaError(`${p}.requireBoxTop`, 'needs "boxTop"');
  if (o.end) spec.end = o.end;
  if (o.boxTop) spec.boxTop = o.boxTop;
  if (o.placeholder) spec.placeholder = o.placeholder;
  return spec;
};

const keyString = (max: number): Schema<string> => str({ min: 1, max });

const headerSchema = object({
  format: literal(PROFILE_FORMAT),
  id: str({ pattern: ID_PATTERN, patternHint: 'lower-case letters, digits, ".", "_" or "-" (at most 64)' }),
  version: str({ min: 1, max: 40 }),
  displayName: str({ min: 1, max: 60 }),
  command: union<string | string[]>(str({ min: 1, max: 1000 }), array(str({ min: 1, max: 1000 }), { min: 1, max: 64 })),
  match: optional(
    object({
      processNames: optional(array(str({ min: 1, max: 64 }), { max: 16 })),
      title: optional(regexField()),
    }),
  ),
  quietMs: optional(int({ min: 0, max: 60_000 })),
  interruptKey: keyString(16),
  wakeLine: (v: unknown, p: string) => {
    const s = str({ min: 1, max: 500 })(v, p);
    if (CONTROL.test(s)) throw new SchemaError(p, 'must be printable text (no control characters; the submit key is "wakeSubmit")');
    return s;
  },
  wakeSubmit: optional(keyString(8)),
  submitDelayMs: optional(int({ min: 0, max: 5000 })),
  prompt: optional(promptSchema),
  resume: optional((v: unknown, p: string): ResumeRecipe => {
    const args = array(str({ min: 1, max: 200 }), { max: 16 });
    const o = object({
      mint: optional(bool),
      launchArgs: optional(args),
      resumeArgs: args,
      openFile: optional(regexField()),
      $comment: optional(union<string | string[]>(str(), array(str()))),
    })(v, p);
    const mint = o.mint ?? false;
    if (mint === (o.openFile !== undefined)) throw new SchemaError(p, 'give either "mint": true (swb makes the id) or "openFile" (the agent makes it), not both or neither');
    if (!o.resumeArgs.some((a) => a.includes('{id}'))) throw new SchemaError(`${p}.resumeArgs`, 'must use {id}');
    if (mint && !(o.launchArgs ?? []).some((a) => a.includes('{id}'))) throw new SchemaError(`${p}.launchArgs`, 'must use {id} when the id is minted');
    if (o.openFile && !/\(\?<id>/.test(o.openFile.source)) throw new SchemaError(`${p}.openFile`, 'needs a named group (?<id>...)');
    return { mint, launchArgs: o.launchArgs ?? [], resumeArgs: o.resumeArgs, ...(o.openFile ? { openFile: o.openFile } : {}) };
  }),
  native: optional((v: unknown, p: string): NativeRecipe => {
    const o = object({
      launchArgs: array(str({ min: 1, max: 200 }), { max: 16 }),
      files: record((x: unknown) => x, { maxKeys: 8 }),
      $comment: optional(union<string | string[]>(str(), array(str()))),
    })(v, p);
    for (const name of Object.keys(o.files)) {
      if (!/^[a-zA-Z][a-zA-Z0-9-]{0,31}$/.test(name)) throw new SchemaError(`${p}.files.${name}`, 'a file name is letters, digits and "-"');
      if (JSON.stringify(o.files[name]).length > 16_384) throw new SchemaError(`${p}.files.${name}`, 'is larger than 16 KiB');
    }
    for (const a of o.launchArgs) {
      const m = /\{file:([^}]*)\}/.exec(a);
      if (m && !(m[1]! in o.files)) throw new SchemaError(`${p}.launchArgs`, `names a file "${m[1]}" that "files" does not define`);
    }
    return { launchArgs: o.launchArgs, files: o.files };
  }),
  // Parsed one by one below so errors can name the rule or dialog id.
  dialogs: optional((v: unknown, p: string) => array((x) => x, { max: PROFILE_LIMITS.dialogs })(v, p)),
  rules: (v: unknown, p: string) => array((x) => x, { max: PROFILE_LIMITS.rules })(v, p),
  $comment: optional(union<string | string[]>(str(), array(str()))),
});

function idOf(v: unknown): string | undefined {
  if (typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string') return (v as { id: string }).id;
  return undefined;
}

function withRuleContext<T>(file: string, parse: () => T, ruleId: string | undefined): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof SchemaError) throw new ProfileError(file, ruleId, err.path, err.problem);
    throw err;
  }
}

/**
 * Parses and validates one profile document. `file` is only used in error messages.
 * Throws ProfileError (naming the file, the rule id when inside a rule, and the field path).
 */
export function parseProfile(json: unknown, file: string, source = file): AgentProfile {
  const h = withRuleContext(file, () => headerSchema(json, ''), undefined);
  const rules: Rule[] = [];
  const seen = new Set<string>();
  h.rules.forEach((raw, i) => {
    const id = idOf(raw);
    const rule = withRuleContext(file, () => ruleSchema(raw, `rules[${i}]`), id);
    if (seen.has(rule.id)) throw new ProfileError(file, rule.id, `rules[${i}].id`, 'duplicate rule id');
    seen.add(rule.id);
    rules.push(rule);
  });
  const dialogs: DialogMarker[] = [];
  (h.dialogs ?? []).forEach((raw, i) => {
    const id = idOf(raw);
    const d = withRuleContext(file, () => dialogSchema(raw, `dialogs[${i}]`), id);
    if (seen.has(d.id)) throw new ProfileError(file, d.id, `dialogs[${i}].id`, 'duplicate id (rules and dialogs share one namespace)');
    seen.add(d.id);
    dialogs.push(d);
  });
  const usesPrompt = [...rules, ...dialogs].some((r) => r.region.kind === 'abovePrompt');
  if (usesPrompt && !h.prompt)
    throw new ProfileError(file, undefined, 'prompt', 'a rule uses region "abovePrompt" but the profile has no "prompt"');
  // Stable sort: highest priority first, file order among equals.
  const ordered = rules.map((r, i) => ({ r, i })).sort((a, b) => b.r.priority - a.r.priority || a.i - b.i).map((x) => x.r);
  const profile: AgentProfile = {
    id: h.id,
    version: h.version,
    displayName: h.displayName,
    command: typeof h.command === 'string' ? { shell: h.command } : { argv: h.command },
    match: { processNames: h.match?.processNames ?? [] },
    quietMs: h.quietMs ?? 1500,
    interruptKey: h.interruptKey,
    wakeLine: h.wakeLine,
    wakeSubmit: h.wakeSubmit ?? '\r',
    submitDelayMs: h.submitDelayMs ?? 150,
    dialogs,
    rules: ordered,
    source,
  };
  if (h.match?.title) profile.match.title = h.match.title;
  if (h.prompt) profile.prompt = h.prompt;
  if (h.resume) profile.resume = h.resume;
  if (h.native) profile.native = h.native;
  return profile;
}

/**
 * The stand-in for a profile id nobody knows: no rules, no prompt, so the state is always
 * `unknown` and the prompt is never free (never another agent's rules). Callers show `warning`.
 */
export function unknownProfile(requestedId: string): AgentProfile {
  return {
    id: requestedId,
    version: '0',
    displayName: `unknown agent "${requestedId}"`,
    command: { shell: '' },
    match: { processNames: [] },
    quietMs: 1500,
    interruptKey: '\u0003',
    wakeLine: 'You have new mail in Switchboard - run `swb inbox` to read it.',
    wakeSubmit: '\r',
    submitDelayMs: 150,
    dialogs: [],
    rules: [],
    source: 'unknown',
  };
}
