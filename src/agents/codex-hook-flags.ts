// Codex's hooks for one launch, as a `-c hooks=...` override (issue #37). Codex 0.171 reads hooks from
// every config layer, the command line's `-c` flags included ("session flags"), but runs a hook that is
// not the administrator's only when its trust is recorded: `hooks.state."<key>".trusted_hash` must equal
// the hash of the hook's own definition. Codex reads that state from the user's config.toml and from the
// session flags, so swb records it beside the hooks, in the same override, for this launch only: the
// user's config.toml is never written, their own hooks keep the trust they gave them, and
// --dangerously-bypass-hook-trust (which would run every untrusted hook) is never used.
// The key and the hash are Codex's (codex-rs/hooks/src/engine/discovery.rs and config/src/fingerprint.rs):
//   key  = "<session-flags path>:<event_label>:<group>:<handler>"
//   hash = "sha256:" + hex(sha256(JSON with keys sorted of {event_name, hooks:[{type,command,timeout,async}]}))
// (absent fields are left out, as Codex's TOML serialisation leaves them). A release that changes either
// shows as hooks that never run: test/real-agents/codex-hooks.test.ts catches that.
import { createHash } from 'node:crypto';

/** The path Codex names the session-flags layer by (a synthetic path under "/"). */
const SESSION_FLAGS_SOURCE = '/<session-flags>/config.toml';
/** Seconds Codex gives each hook (its default is 600): `swb hook` reports and exits in well under one. */
const HOOK_TIMEOUT_S = 10;
/**
 * Codex clamps an Interrupt hook's timeout to 3 s ("clamping Interrupt hook timeout to 3s" in its hooks
 * view) and hashes the clamped definition: a larger one is a hook "new or changed" that never runs.
 */
const CLAMPED_TIMEOUT_S: Readonly<Record<string, number>> = { Interrupt: 3 };

/** Codex's snake_case label of an event, used in trust keys and hashes: `UserPromptSubmit` → `user_prompt_submit`. */
export function codexEventLabel(event: string): string {
  return event.replace(/[A-Z]/g, (c, i: number) => `${i > 0 ? '_' : ''}${c.toLowerCase()}`);
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}

/** The trust hash Codex computes for a one-hook group without a matcher. */
export function codexHookHash(event: string, handler: Record<string, unknown>): string {
  const identity = { event_name: codexEventLabel(event), hooks: [handler] };
  return `sha256:${createHash('sha256').update(JSON.stringify(canonical(identity))).digest('hex')}`;
}

/** A value as a TOML inline value (strings in JSON's escapes, which TOML's basic strings share). */
function toml(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(toml).join(',')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${JSON.stringify(k)}=${toml(x)}`)
    .join(',')}}`;
}

/**
 * The `-c hooks=...` arguments that give Codex these hooks (event → shell command), each run in the
 * background (`async`: a turn never waits for swb), with their trust for this launch. Empty when none.
 */
export function codexHookArgs(hooks: Readonly<Record<string, string>>): string[] {
  const events = Object.entries(hooks);
  if (events.length === 0) return [];
  const table: Record<string, unknown> = {};
  const state: Record<string, { trusted_hash: string }> = {};
  for (const [event, command] of events) {
    const handler = { type: 'command', command, timeout: CLAMPED_TIMEOUT_S[event] ?? HOOK_TIMEOUT_S, async: true };
    table[event] = [{ hooks: [handler] }];
    state[`${SESSION_FLAGS_SOURCE}:${codexEventLabel(event)}:0:0`] = { trusted_hash: codexHookHash(event, handler) };
  }
  return ['-c', `hooks=${toml({ ...table, state })}`];
}
