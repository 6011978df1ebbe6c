// Hands an agent swb's own tools at every launch of its row, as its profile's `native` recipe says
// (issue #13): the files the recipe names are written for the row (0600, in a 0700 dir of the
// runtime dir), the recipe's arguments pointing at them (and Codex's hooks with their trust, issue #37)
// are appended to the row's command, and its variables naming them are added to the row's
// environment. The user's own config files are never touched. A hook's command names its client
// `{swb-hook}`: the native hook client where it was built, else `swb hook` (hookRunner, decided here).
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codexHookArgs } from '../agents/codex-hook-flags.js';
import { resolveProfile, type ProfileSet } from '../agents/load-profiles.js';
import type { RowSpec } from '../rows/row.js';
import { shellQuote } from '../util/shell-quote.js';

export interface NativeToolsOptions {
  profiles: ProfileSet;
  /** Where the rows' files go: <dir>/<row>/<file>.json. */
  dir: string;
  /** The swb launcher rows run (`{swb}` in the recipe). */
  swb: string;
  /** The native hook client (util/native-addon.ts nativeHookClientPath), or null: hooks run `swb hook`. */
  hookClient: string | null;
}

/** The launch with the profile's native arguments (and their files written), or the launch as it was. */
export function withNativeTools(spec: RowSpec, o: NativeToolsOptions): RowSpec {
  if (spec.profile === undefined || spec.nativeTools === false) return spec;
  const recipe = resolveProfile(o.profiles, spec.profile).profile.native;
  if (!recipe) return spec;
  const rowDir = join(o.dir, spec.name);
  const paths = new Map<string, string>();
  if (Object.keys(recipe.files).length > 0) {
    mkdirSync(rowDir, { recursive: true, mode: 0o700 });
    chmodSync(rowDir, 0o700);
  }
  for (const [name, content] of Object.entries(recipe.files)) {
    const file = join(rowDir, `${name}.json`);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(substitute(content, o), null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
    paths.set(name, file);
  }
  const fileRef = (v: string): string => v.replace(/\{file:([^}]*)\}/g, (_m, name: string) => paths.get(name) ?? '');
  // In arguments `{swb}` is the launcher's path as it is (the recipe quotes it as its agent wants, e.g. TOML);
  // in a hook's command (a shell line) it is quoted.
  const args = [
    ...codexHookArgs(Object.fromEntries(Object.entries(recipe.codexHooks).map(([event, command]) => [event, substitute(command, o) as string]))),
    ...recipe.launchArgs.map((a) => fileRef(a).replaceAll('{swb}', o.swb)),
  ];
  const envEntries = Object.entries(recipe.env);
  if (envEntries.length > 0) spec = { ...spec, env: { ...spec.env, ...Object.fromEntries(envEntries.map(([k, v]) => [k, fileRef(v)])) } };
  const c = spec.command;
  if (args.length === 0) return spec;
  if (typeof c === 'string') return { ...spec, command: `${c} ${args.map(shellQuote).join(' ')}` };
  if ('shell' in c) return { ...spec, command: { shell: `${c.shell} ${args.map(shellQuote).join(' ')}` } };
  return { ...spec, command: { ...c, args: [...(c.args ?? []), ...args] } };
}

/**
 * What runs a hook (`{swb-hook} <event>` in a recipe), as a shell line's start: the native client,
 * told the launcher to hand what it does not do itself to (native/hook-client.c), or `swb hook`.
 */
export function hookRunner(o: Pick<NativeToolsOptions, 'swb' | 'hookClient'>): string {
  return o.hookClient ? `${shellQuote(o.hookClient)} ${shellQuote(o.swb)}` : `${shellQuote(o.swb)} hook`;
}

/** `{swb}` alone is the launcher's path; inside a longer string (a shell command) it is quoted; `{swb-hook}` is hookRunner's. */
function substitute(value: unknown, o: Pick<NativeToolsOptions, 'swb' | 'hookClient'>): unknown {
  if (typeof value === 'string') return value === '{swb}' ? o.swb : value.replaceAll('{swb-hook}', hookRunner(o)).replaceAll('{swb}', shellQuote(o.swb));
  if (Array.isArray(value)) return value.map((v) => substitute(v, o));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, o)]));
  return value;
}
