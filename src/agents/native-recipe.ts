// The grammar of a profile's `native` recipe: what swb hands an agent at every launch of its row so
// the agent has swb's own tools (issue #13) and reports its turns through its own hooks (issue #37),
// without touching the user's config. Three ways, as agents take them: files swb writes per row and the
// arguments that point the agent at them (Claude Code's --settings, --mcp-config); environment
// variables naming such files (Gemini CLI reads a settings file from GEMINI_CLI_SYSTEM_DEFAULTS_PATH);
// and Codex's hooks, passed as one `-c hooks=...` override with the trust Codex asks of a hook
// (codex-hook-flags.ts computes it: the hook's command holds the launcher's path, known only at launch).
import * as z from 'zod';
import { ownRecord } from '../util/schema.js';
import { comment } from './schema-comment.js';

export interface NativeRecipe {
  launchArgs: string[];
  files: Record<string, unknown>;
  /** Variables for the agent's environment; `{file:NAME}` is the path of a file of `files`. */
  env: Record<string, string>;
  /** Codex hook events (its names: `Stop`, `UserPromptSubmit`, ...) and the shell command each runs. */
  codexHooks: Record<string, string>;
}

/**
 * The hook events Codex 0.171 reads from a config layer (`hooks.<Event>`), in the order it lists them
 * (its managed-hooks requirements: PreModelRequest, SessionEnd and the subagent events are not offered
 * here; Interrupt is, with its own input schema `interrupt.command.input`).
 */
export const CODEX_HOOK_EVENTS = ['PreToolUse', 'PermissionRequest', 'PostToolUse', 'PreCompact', 'PostCompact', 'SessionStart', 'UserPromptSubmit', 'Stop', 'Interrupt'] as const;

const FILE_NAME_HINT = 'a file name is letters, digits and "-"';
const ENV_NAME_HINT = 'an environment variable name is upper-case letters, digits and "_"';
const FILE_REF = /\{file:([^}]*)\}/;

function buildNativeSchema() {
  return z
    .strictObject({
      launchArgs: z.array(z.string().min(1).max(200)).max(16),
      files: ownRecord(z.string().regex(/^[a-zA-Z][a-zA-Z0-9-]{0,31}$/, { error: FILE_NAME_HINT }), z.unknown(), { maxKeys: 8, keyProblem: FILE_NAME_HINT }),
      env: ownRecord(z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, { error: ENV_NAME_HINT }), z.string().min(1).max(200), { maxKeys: 8, keyProblem: ENV_NAME_HINT })
        .default({})
        .describe('Variables set in the agent\'s environment ({file:NAME} is the path of a file of "files").'),
      codexHooks: ownRecord(z.string().refine((e) => (CODEX_HOOK_EVENTS as readonly string[]).includes(e), { error: `a Codex hook event: ${CODEX_HOOK_EVENTS.join(', ')}` }), z.string().min(1).max(200), { maxKeys: CODEX_HOOK_EVENTS.length, keyProblem: `a Codex hook event: ${CODEX_HOOK_EVENTS.join(', ')}` })
        .default({})
        .describe('Codex hooks ({swb} is the launcher, {swb-hook} what runs a hook): passed as -c hooks=..., each trusted for this launch only, run in the background.'),
      $comment: comment(),
    })
    .superRefine((n, ctx) => {
      for (const [name, content] of Object.entries(n.files)) {
        if (JSON.stringify(content).length > 16_384) ctx.addIssue({ code: 'custom', input: content, path: ['files', name], message: 'is larger than 16 KiB' });
      }
      const refs: Array<[string | number, string, string]> = [...n.launchArgs.map((a, i): [number, string, string] => [i, a, 'launchArgs']), ...Object.entries(n.env).map(([k, v]): [string, string, string] => [k, v, 'env'])];
      for (const [at, value, field] of refs) {
        const m = FILE_REF.exec(value);
        if (m && !Object.hasOwn(n.files, m[1]!)) ctx.addIssue({ code: 'custom', input: value, path: [field, at], message: `names a file "${m[1]}" that "files" does not define` });
      }
    })
    .transform(({ launchArgs, files, env, codexHooks }): NativeRecipe => ({ launchArgs, files, env, codexHooks }))
    .describe("swb's own tools for the agent: files swb writes per row and the arguments that point the agent at them.");
}

let nativeSchemaBuilt: ReturnType<typeof buildNativeSchema> | undefined;

/** The recipe's schema, built at its first use, with the profile schema (profile-schema.ts says why). */
export function nativeSchema(): ReturnType<typeof buildNativeSchema> {
  return (nativeSchemaBuilt ??= buildNativeSchema());
}
