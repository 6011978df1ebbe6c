// Loads the bundled agent profiles plus the user's additions and overrides from
// `<configDir>/profiles/*.json`. A bad user file is reported and skipped (the bundled profile of the
// same id stays in force); a bad bundled file is a bug and throws. The bundled ones come checked
// by the build when it can (compiled-profiles.ts).
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROFILE_LIMITS, ProfileError, parseProfile, unknownProfile, type AgentProfile } from './profile-schema.js';
import { parseJsonc } from '../config/parse-jsonc.js';
import { COMPILED_PROFILES_PATH, decodeProfiles, profilesDigest, type ProfileSource } from './compiled-profiles.js';

export interface ProfileLoadError {
  file: string;
  message: string;
}

export interface ProfileSet {
  profiles: Map<string, AgentProfile>;
  /** Problems with user files (each skipped). */
  errors: ProfileLoadError[];
}

export interface LoadProfilesOptions {
  /** Switchboard's config dir; profiles are read from `<configDir>/profiles/`. Default: XDG config dir. */
  configDir?: string;
  /** Where the bundled profiles live (tests); default `<package root>/src/agents/profiles`. */
  bundledDir?: string;
  env?: NodeJS.ProcessEnv;
}

/** `$XDG_CONFIG_HOME/switchboard` or `~/.config/switchboard`. */
export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'switchboard');
}

function isOurManifest(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown }).name === 'switchboard';
  } catch {
    return false;
  }
}

/**
 * Walks up from this module (or `from`) to switchboard's package.json (works from src/ and dist/src/).
 * This module's own answer is found once: each start read and parsed package.json three times per
 * launch plan for it, twice on a cold start's way to the first frame (issue #33).
 */
export function packageRoot(from?: string): string {
  if (from === undefined) return (ownRoot ??= findPackageRoot(dirname(fileURLToPath(import.meta.url))));
  return findPackageRoot(from);
}
let ownRoot: string | undefined;

function findPackageRoot(from: string): string {
  let dir = from;
  for (;;) {
    if (isOurManifest(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no switchboard package.json above ${from}`);
    dir = parent;
  }
}

export function bundledProfilesDir(): string {
  return join(packageRoot(), 'src', 'agents', 'profiles');
}

/** Reads a file refusing anything over `max` bytes (checked on the open descriptor, not by path). */
function readBounded(path: string, max: number): string {
  const fd = openSync(path, 'r');
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > max) throw new Error(`file is larger than ${max} bytes`);
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function jsonFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

/** Parses one profile file; throws ProfileError naming the file. */
export function loadProfileFile(path: string, label: string = path): AgentProfile {
  let text: string;
  try {
    text = readBounded(path, PROFILE_LIMITS.fileBytes);
  } catch (err) {
    throw new ProfileError(label, undefined, '', `cannot read: ${(err as Error).message}`);
  }
  return parseProfileText(text, label);
}

function parseProfileText(text: string, label: string): AgentProfile {
  // Comments and trailing commas are fine (JSONC), as in the config.
  const parsed = parseJsonc(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!parsed.ok) throw new ProfileError(label, undefined, '', `${parsed.line}:${parsed.column}: ${parsed.problem}`);
  return parseProfile(parsed.value, label, label);
}

/**
 * The bundled profiles are part of the code that runs: read once per process. A server reads the
 * profiles for every client that attaches (6 ms of a reattach's 15 here, mostly these), and an
 * upgrade that replaces the package's files must not change a running server's profiles.
 */
const bundledCache = new Map<string, readonly AgentProfile[]>();

function bundledProfiles(dir: string): readonly AgentProfile[] {
  const cached = bundledCache.get(dir);
  if (cached) return cached;
  const sources = bundledProfileSources(dir);
  // The package's own profiles, as the build checked them (compiled-profiles.ts), when they are these.
  const compiled = dir === bundledProfilesDir() ? readCompiled(profilesDigest(sources)) : null;
  const out = compiled ?? parseBundledProfiles(sources);
  bundledCache.set(dir, out);
  return out;
}

function readBundled(path: string, name: string): string {
  try {
    return readBounded(path, PROFILE_LIMITS.fileBytes);
  } catch (err) {
    throw new ProfileError(`bundled:${name}`, undefined, '', `cannot read: ${(err as Error).message}`);
  }
}

function readCompiled(digest: string): AgentProfile[] | null {
  let text: string;
  try {
    text = readFileSync(join(packageRoot(), ...COMPILED_PROFILES_PATH), 'utf8');
  } catch {
    return null; // not built (tsc alone): parsed instead
  }
  return decodeProfiles(text, digest);
}

/** The bundled profile files parsed and checked (the build's compile-profiles.mjs, and a start without its output). */
export function parseBundledProfiles(sources: readonly ProfileSource[]): AgentProfile[] {
  const out: AgentProfile[] = [];
  for (const { name, text } of sources) {
    const label = `bundled:${name}`;
    const p = parseProfileText(text, label);
    if (`${p.id}.json` !== name) throw new ProfileError(label, undefined, 'id', `id "${p.id}" does not match the file name`);
    out.push(p);
  }
  return out;
}

/** The bundled profile files, as read (for compile-profiles.mjs). */
export function bundledProfileSources(dir: string = bundledProfilesDir()): ProfileSource[] {
  return jsonFiles(dir).map((name) => ({ name, text: readBundled(join(dir, name), name) }));
}

export function loadProfiles(opts: LoadProfilesOptions = {}): ProfileSet {
  const profiles = new Map<string, AgentProfile>();
  const errors: ProfileLoadError[] = [];
  for (const p of bundledProfiles(opts.bundledDir ?? bundledProfilesDir())) profiles.set(p.id, p);
  const userDir = join(opts.configDir ?? defaultConfigDir(opts.env), 'profiles');
  let userFiles: string[] = [];
  try {
    userFiles = jsonFiles(userDir);
  } catch (err) {
    errors.push({ file: userDir, message: `cannot list: ${(err as Error).message}` });
  }
  for (const f of userFiles) {
    const path = join(userDir, f);
    try {
      const p = loadProfileFile(path);
      profiles.set(p.id, p);
    } catch (err) {
      errors.push({ file: path, message: (err as Error).message });
    }
  }
  return { profiles, errors };
}

export interface ResolvedProfile {
  profile: AgentProfile;
  /** Set when the id is unknown: show it to the operator. */
  warning?: string;
}

/** Looks a profile up by id; an unknown id gets the rule-less `unknown` profile and a warning. */
export function resolveProfile(set: ProfileSet, id: string): ResolvedProfile {
  const p = set.profiles.get(id);
  if (p) return { profile: p };
  return {
    profile: unknownProfile(id),
    warning: `no agent profile "${id}": its state stays unknown and it is never woken (known: ${[...set.profiles.keys()].sort().join(', ')})`,
  };
}
