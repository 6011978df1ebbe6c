// The one schema for agent profile files (src/agents/profiles/*.json and user overrides).
// A profile is data: how to start the agent, how to find its input line, which screen rules map to
// which state, its interrupt key and its fixed wake line. Parsing is strict (unknown fields are
// rejected), regexes are compiled once here, and every error names the file and, inside a rule, the rule id.
// One file over 450 lines because it is one concept: the profile file's grammar, each field with its
// description for `swb schema`; its parts have no reader apart from the whole.
import * as z from 'zod';
import { checkFile, editorSchemaField } from '../util/schema.js';
import { nativeSchema, type NativeRecipe } from './native-recipe.js';
import { comment } from './schema-comment.js';

export type { NativeRecipe } from './native-recipe.js';

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
  /**
   * Where the agent keeps a conversation's transcript: a path with `{id}`, `~` and `${VAR:-default}`,
   * in which `*` stands for any part of one path segment. A session whose transcript is there and
   * not empty had turns, and a failed resume never starts such a row afresh (its conversation would
   * be lost to swb). Without it, a resume the agent refuses starts the row again as a new one.
   */
  transcript?: string;
  /**
   * Text only a turn writes into the transcript (Claude Code's `"type":"user"`, Gemini CLI's
   * `"type":"gemini"` — a model's answer: at start it records a metadata line and a "user" message of
   * its own —, Codex's `user_message`): an agent that writes its file at start has a non-empty
   * transcript before any turn, so with a marker "had turns" means "holds the marker".
   */
  turnMarker?: string;
}

/**
 * How a row hands its agent swb's own tools without touching the user's config files: files swb
 * writes per row (JSON; `{swb}` in their strings is the row's swb launcher, `{swb-hook}` what runs a
 * hook: src/server/native-tools.ts hookRunner) and the arguments that
 * point the agent at them (`{file:NAME}` is the path of file NAME). Claude Code: an MCP config
 * (--mcp-config) and settings (--settings) holding the Stop hook and the allow rule for mcp__swb__*.
 */
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
// Control characters (C0, DEL, C1): a wake line must be plain printable text.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/**
 * The profile file's grammar, built at its first use: the built-in profiles ship parsed
 * (compiled-profiles.ts), so a server whose operator has no profile files of their own never
 * needs it, and building it was some 20 ms of every cold start's load (issue #33).
 */
function buildProfileFileSchema() {
  const ruleId = z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_.-]+$/, { error: 'letters, digits, "_", "." or "-"' });

  // Regexes always carry the `u` flag; a profile may add i, m and s.
  const regexSource = z.string().min(1).max(PROFILE_LIMITS.regexLength);
  const regexFlags = z
    .string()
    .max(3)
    .refine((f) => /^[ims]*$/.test(f) && new Set(f).size === f.length, { error: 'flags may only combine "i", "m" and "s"' });

  /** Compiles in a transform, so a bad pattern is an issue at its field (`at`, below the transformed value). */
  function compiled(source: string, flags: string, ctx: z.RefinementCtx, at: string[] = []): RegExp {
    try {
      return new RegExp(source, `${flags}u`);
    } catch (err) {
      ctx.addIssue({ code: 'custom', input: source, path: at, message: `invalid regular expression: ${(err as Error).message}` });
      return z.NEVER;
    }
  }

  const regexField = z
    .union(
      [
        regexSource.transform((source, ctx) => compiled(source, '', ctx)),
        z.strictObject({ source: regexSource, flags: regexFlags }).transform((o, ctx) => compiled(o.source, o.flags, ctx, ['source'])),
      ],
      { error: 'expected a regex string or {"source", "flags"}' },
    )
    .meta({ id: 'regex', description: 'A regular expression (Unicode): a string, or {"source", "flags"} with flags from "i", "m", "s".' });

  const regionLines = z.int().min(1).max(PROFILE_LIMITS.regionLines);
  const regionSchema = z
    .discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('bottom'), lines: regionLines }),
      z.strictObject({ kind: z.literal('abovePrompt'), lines: regionLines }),
      z.strictObject({ kind: z.literal('title') }),
      z.strictObject({ kind: z.literal('screen') }),
      z.strictObject({ kind: z.literal('cursorLine') }),
    ])
    .meta({ id: 'region', description: 'The screen region a rule reads: the bottom N lines, N lines above the prompt, the title, the whole screen, or the cursor line.' });

  const MATCHER_KINDS = ['contains', 'regex', 'lineRegex', 'all', 'any', 'not'] as const;

  /** One matcher per object: exactly one of MATCHER_KINDS, and "flags" only beside a regex. Checked before its fields. */
  function oneMatcherPerObject(input: unknown, ctx: z.RefinementCtx): unknown {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      ctx.addIssue({ code: 'custom', input, message: `expected a matcher object with one of: ${MATCHER_KINDS.join(', ')}` });
      return input;
    }
    const keys = Object.keys(input);
    const kind = keys.find((k) => (MATCHER_KINDS as readonly string[]).includes(k));
    if (kind === undefined) {
      ctx.addIssue({ code: 'custom', input, message: `a matcher needs one of: ${MATCHER_KINDS.join(', ')}` });
      return input;
    }
    const allowed = kind === 'regex' || kind === 'lineRegex' ? [kind, 'flags'] : [kind];
    const extra = keys.find((k) => !allowed.includes(k));
    if (extra !== undefined) {
      ctx.addIssue({ code: 'custom', input, path: [extra], message: `unexpected field next to "${kind}" (one matcher per object; use "all" to combine)` });
    }
    return input;
  }

  const tooDeep = z.never({ error: `gates nest deeper than ${PROFILE_LIMITS.gateDepth}` });
  const needle = z.string().min(1).max(PROFILE_LIMITS.containsLength);

  /**
   * A matcher whose gates may nest `gatesLeft` more levels. Built bottom-up, one schema per level, so
   * the cap is part of the schema and parsing never recurses past it, whatever the file holds.
   */
  function matcherSchema(gatesLeft: number): z.ZodType<Matcher> {
    const inner = gatesLeft === 0 ? tooDeep : matcherSchema(gatesLeft - 1);
    const gate = gatesLeft === 0 ? tooDeep : z.array(inner).min(1).max(PROFILE_LIMITS.matchersPerRule);
    const fields = z
      .strictObject({
        contains: z.optional(z.union([needle, z.array(needle).min(1).max(8)], { error: 'expected a string or a list of 1-8 strings' })),
        regex: z.optional(regexSource),
        lineRegex: z.optional(regexSource),
        flags: z.optional(regexFlags),
        all: z.optional(gate),
        any: z.optional(gate),
        not: z.optional(inner),
      })
      .meta({
        description: 'One matcher: exactly one of contains (case-insensitive), regex, lineRegex (per line), all, any, not; "flags" goes beside regex or lineRegex.',
        minProperties: 1,
      });
    const toMatcher = (m: z.output<typeof fields>, ctx: z.RefinementCtx): Matcher => {
      if (m.contains !== undefined) return { kind: 'contains', needles: (typeof m.contains === 'string' ? [m.contains] : m.contains).map((n) => n.toLowerCase()) };
      if (m.regex !== undefined) return { kind: 'regex', re: compiled(m.regex, m.flags ?? '', ctx, ['regex']) };
      if (m.lineRegex !== undefined) return { kind: 'lineRegex', re: compiled(m.lineRegex, m.flags ?? '', ctx, ['lineRegex']) };
      if (m.all !== undefined) return { kind: 'all', of: m.all };
      if (m.any !== undefined) return { kind: 'any', of: m.any };
      return { kind: 'not', of: m.not! };
    };
    // Named per level in the JSON Schema (matcher, matcherAtDepth1, ...), so each level is written once.
    const depth = PROFILE_LIMITS.gateDepth - gatesLeft;
    return z.preprocess(oneMatcherPerObject, fields.transform(toMatcher)).meta({ id: depth === 0 ? 'matcher' : `matcherAtDepth${depth}` });
  }

  const matcher = matcherSchema(PROFILE_LIMITS.gateDepth);

  function matcherCount(m: Matcher): number {
    if (m.kind === 'all' || m.kind === 'any') return 1 + m.of.reduce((n, child) => n + matcherCount(child), 0);
    if (m.kind === 'not') return 1 + matcherCount(m.of);
    return 1;
  }

  function atMostMatchersPerRule(r: { match: Matcher }, ctx: z.RefinementCtx): void {
    if (matcherCount(r.match) > PROFILE_LIMITS.matchersPerRule) {
      ctx.addIssue({ code: 'custom', input: r.match, path: ['match'], message: `too many matchers (at most ${PROFILE_LIMITS.matchersPerRule} per rule)` });
    }
  }

  const ruleSchema = z
    .strictObject({
      id: ruleId,
      state: z.enum(AGENT_STATES),
      priority: z.int().min(0).max(100_000).describe('Higher wins; rules of equal priority are tried in file order.'),
      description: z.optional(z.string().max(300)),
      region: regionSchema,
      match: matcher,
    })
    .superRefine(atMostMatchersPerRule)
    .describe('A screen rule: when its matcher matches in its region, the row is in its state.');

  const dialogSchema = z
    .strictObject({ id: ruleId, region: regionSchema, match: matcher })
    .superRefine(atMostMatchersPerRule)
    .describe('A dialog the agent shows (a permission prompt): while it is up, swb never types.');

  const promptSchema = z
    .strictObject({
      line: regexField,
      end: z.optional(regexField),
      searchLines: z.int().min(1).max(PROFILE_LIMITS.regionLines).default(12),
      atCursor: z.boolean().default(false),
      boxTop: z.optional(regexField),
      requireBoxTop: z.boolean().default(false),
      cursor: z.enum(['required', 'onLine', 'ifVisible', 'ignore']).default('required'),
      placeholder: z.optional(regexField),
      dimIsPlaceholder: z.boolean().default(true),
      normalScreenOnly: z.boolean().default(false),
      noForegroundJob: z.boolean().default(false),
    })
    .superRefine((p, ctx) => {
      if (p.requireBoxTop && !p.boxTop) ctx.addIssue({ code: 'custom', input: p, path: ['requireBoxTop'], message: 'needs "boxTop"' });
    })
    .describe("How to find the agent's input line (see PromptSpec in src/agents/profile-schema.ts).");

  const recipeArgs = z.array(z.string().min(1).max(200)).max(16);

  const resumeSchema = z
    .strictObject({
      mint: z.boolean().default(false),
      launchArgs: recipeArgs.default([]),
      resumeArgs: recipeArgs,
      openFile: z.optional(regexField),
      transcript: z.optional(z.string().min(1).max(300).describe('Where the agent keeps the transcript of session {id} ({id:N}: its first N characters; `~`, `${VAR:-default}`, `*` within one segment): a resume refused while it is there and not empty keeps the session.')),
      turnMarker: z.optional(z.string().min(1).max(100).describe('Text only a turn writes into the transcript: with it, a transcript had turns when it holds this text, not when it is merely not empty.')),
      $comment: comment(),
    })
    .superRefine((r, ctx) => {
      const problem = (path: string[], message: string) => ctx.addIssue({ code: 'custom', input: r, path, message });
      if (r.mint === (r.openFile !== undefined)) problem([], 'give either "mint": true (swb makes the id) or "openFile" (the agent makes it), not both or neither');
      else if (!r.resumeArgs.some((a) => a.includes('{id}'))) problem(['resumeArgs'], 'must use {id}');
      else if (r.mint && !r.launchArgs.some((a) => a.includes('{id}'))) problem(['launchArgs'], 'must use {id} when the id is minted');
      else if (r.openFile && !/\(\?<id>/.test(r.openFile.source)) problem(['openFile'], 'needs a named group (?<id>...)');
      else if (r.transcript !== undefined && !/\{id(?::\d{1,3})?\}/.test(r.transcript)) problem(['transcript'], 'must use {id} (or {id:N}, its first N characters)');
      else if (r.turnMarker !== undefined && r.transcript === undefined) problem(['turnMarker'], 'needs "transcript" (the file it is looked for in)');
    })
    .transform(({ $comment: _note, openFile, transcript, turnMarker, ...r }): ResumeRecipe => ({
      ...r,
      ...(openFile ? { openFile } : {}),
      ...(transcript !== undefined ? { transcript } : {}),
      ...(turnMarker !== undefined ? { turnMarker } : {}),
    }))
    .describe('How the agent resumes its conversation when its row is relaunched (`{id}` is the session id).');

  /** A profile file as written (src/agents/profiles/*.json and user files): strict, so a typo is an error. */
  return z
    .strictObject({
      $schema: editorSchemaField(),
      format: z.literal(PROFILE_FORMAT).describe('The profile format; this engine reads format 1.'),
      id: z.string().regex(ID_PATTERN, { error: 'lower-case letters, digits, ".", "_" or "-" (at most 64)' }).describe('The profile id: the file is <id>.json.'),
      version: z.string().min(1).max(40),
      displayName: z.string().min(1).max(60),
      command: z
        .union([z.string().min(1).max(1000), z.array(z.string().min(1).max(1000)).min(1).max(64)])
        .describe('Default command: an argv array, or a shell line run with `sh -c`.'),
      match: z.optional(z.strictObject({ processNames: z.array(z.string().min(1).max(64)).max(16).default([]), title: z.optional(regexField) })),
      quietMs: z.int().min(0).max(60_000).default(1500).describe('How long the screen must be still before the row counts as idle.'),
      interruptKey: z.string().min(1).max(16),
      wakeLine: z
        .string()
        .min(1)
        .max(500)
        .refine((line) => !CONTROL.test(line), { error: 'must be printable text (no control characters; the submit key is "wakeSubmit")' })
        .describe('What swb types to tell an idle agent it has mail.'),
      wakeSubmit: z.string().min(1).max(8).default('\r'),
      submitDelayMs: z.int().min(0).max(5000).default(150).describe('Pause between typing the wake line and the submit key (TUIs treat an instant Enter as paste).'),
      prompt: z.optional(promptSchema),
      resume: z.optional(resumeSchema),
      native: z.optional(nativeSchema()),
      dialogs: z.array(dialogSchema).max(PROFILE_LIMITS.dialogs).default([]),
      rules: z.array(ruleSchema).max(PROFILE_LIMITS.rules),
      $comment: comment(),
    })
    .superRefine((p, ctx) => {
      const problem = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', input: p, path, message });
      const seen = new Set<string>();
      p.rules.forEach((r, i) => {
        if (seen.has(r.id)) problem(['rules', i, 'id'], 'duplicate rule id');
        seen.add(r.id);
      });
      p.dialogs.forEach((d, i) => {
        if (seen.has(d.id)) problem(['dialogs', i, 'id'], 'duplicate id (rules and dialogs share one namespace)');
        seen.add(d.id);
      });
      if (!p.prompt && [...p.rules, ...p.dialogs].some((r) => r.region.kind === 'abovePrompt')) {
        problem(['prompt'], 'a rule uses region "abovePrompt" but the profile has no "prompt"');
      }
    })
    .meta({ title: 'Switchboard agent profile', description: 'A Switchboard agent profile: how to start the agent, find its prompt, read its state and wake it.' });
}

let profileSchemaBuilt: ReturnType<typeof buildProfileFileSchema> | undefined;

/** A profile file as written (src/agents/profiles/*.json and user files): strict, so a typo is an error. */
export function profileFileSchema(): ReturnType<typeof buildProfileFileSchema> {
  return (profileSchemaBuilt ??= buildProfileFileSchema());
}

/** The id of the rule or dialog an error path points into (`rules[3].match...`), read from the raw file. */
function ruleIdAt(json: unknown, path: string): string | undefined {
  const at = /^(rules|dialogs)\[(\d+)\]/.exec(path);
  if (!at) return undefined;
  const list = (json as Record<string, unknown>)[at[1]!];
  const entry = Array.isArray(list) ? (list[Number(at[2])] as unknown) : undefined;
  if (typeof entry === 'object' && entry !== null && typeof (entry as { id?: unknown }).id === 'string') return (entry as { id: string }).id;
  return undefined;
}

/**
 * Parses and validates one profile document. `file` is only used in error messages.
 * Throws ProfileError (naming the file, the rule id when inside a rule, and the field path).
 */
export function parseProfile(json: unknown, file: string, source = file): AgentProfile {
  const checked = checkFile(profileFileSchema(), json);
  if (!checked.ok) {
    const { path, problem } = checked.error;
    throw new ProfileError(file, ruleIdAt(json, path), path, problem);
  }
  const h = checked.value;
  // Stable sort: highest priority first, file order among equals.
  const ordered = h.rules.map((r, i) => ({ r, i })).sort((a, b) => b.r.priority - a.r.priority || a.i - b.i).map((x) => x.r);
  const profile: AgentProfile = {
    id: h.id,
    version: h.version,
    displayName: h.displayName,
    command: typeof h.command === 'string' ? { shell: h.command } : { argv: h.command },
    match: { processNames: h.match?.processNames ?? [] },
    quietMs: h.quietMs,
    interruptKey: h.interruptKey,
    wakeLine: h.wakeLine,
    wakeSubmit: h.wakeSubmit,
    submitDelayMs: h.submitDelayMs,
    dialogs: h.dialogs,
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
