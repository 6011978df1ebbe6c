// The bundled agent profiles, checked once at build rather than at every server start (issue #33).
// Parsing them through their zod schema (profile-schema.ts) is about 30 ms of a cold server's start,
// for files that ship with the code and cannot change under it: `npm run build` parses them all
// (scripts/compile-profiles.mjs: a bad bundled profile fails the build, as it would fail a start)
// and writes the result as JSON, each compiled pattern as {"$re": [source, flags]}; a start reads
// that back and compiles the patterns again. The file names the digest of the sources it was made
// from: after an edit without a build it is not used, and the profiles are parsed as before. The
// operator's own profiles are always parsed and checked (load-profiles.ts).
import { createHash } from 'node:crypto';
import type { AgentProfile } from './profile-schema.js';

/** Where the build writes the checked profiles, under the package root. */
export const COMPILED_PROFILES_PATH = ['dist', 'agent-profiles.json'] as const;

/** One bundled profile file, as read. */
export interface ProfileSource {
  name: string;
  text: string;
}

/** The digest of the bundled profile files: their names and contents, in order. */
export function profilesDigest(sources: readonly ProfileSource[]): string {
  const hash = createHash('sha256');
  for (const s of sources) hash.update(`${s.name}\0${s.text}\0`);
  return hash.digest('hex');
}

/** The checked profiles as the build writes them. */
export function encodeProfiles(digest: string, profiles: readonly AgentProfile[]): string {
  return JSON.stringify({ digest, profiles }, (_key, value: unknown) => (value instanceof RegExp ? { $re: [value.source, value.flags] } : value));
}

/** The profiles the build checked, or null when they were made from other sources (or the file is not one of ours). */
export function decodeProfiles(text: string, digest: string): AgentProfile[] | null {
  try {
    const file = JSON.parse(text, (_key, value: unknown) => {
      if (typeof value === 'object' && value !== null && '$re' in value) {
        const [source, flags] = (value as { $re: [string, string] }).$re;
        return new RegExp(source, flags);
      }
      return value;
    }) as { digest?: unknown; profiles?: unknown };
    return file.digest === digest && Array.isArray(file.profiles) ? (file.profiles as AgentProfile[]) : null;
  } catch {
    return null;
  }
}
