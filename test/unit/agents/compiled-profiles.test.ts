// The bundled agent profiles as the build checked them (src/agents/compiled-profiles.ts): read back,
// they are exactly what parsing the files gives (every compiled pattern too, flags and all); made
// from other sources (a profile edited after the build) or damaged, they are not used and the files
// are parsed as before; a start reads the build's file when it matches.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPILED_PROFILES_PATH, decodeProfiles, encodeProfiles, profilesDigest } from '../../../src/agents/compiled-profiles.js';
import { bundledProfileSources, loadProfiles, packageRoot, parseBundledProfiles } from '../../../src/agents/load-profiles.js';

describe('compiled agent profiles', () => {
  const sources = bundledProfileSources();
  const parsed = parseBundledProfiles(sources);
  const digest = profilesDigest(sources);

  it('read back, are exactly the parsed profiles, patterns compiled with their flags', () => {
    const decoded = decodeProfiles(encodeProfiles(digest, parsed), digest);
    expect(decoded).toEqual(parsed);
    // toEqual compares RegExps by source and flags; a pattern also matches as the parsed one does.
    const claude = decoded!.find((p) => p.id === 'claude')!;
    const original = parsed.find((p) => p.id === 'claude')!;
    expect(claude.rules.length).toBeGreaterThan(0);
    expect(JSON.stringify(claude.rules, (_k, v: unknown) => (v instanceof RegExp ? `re:${v.source}/${v.flags}` : v))).toBe(
      JSON.stringify(original.rules, (_k, v: unknown) => (v instanceof RegExp ? `re:${v.source}/${v.flags}` : v)),
    );
  });

  it('made from other sources, or damaged, they are not used', () => {
    const edited = sources.map((s, i) => (i === 0 ? { ...s, text: `${s.text} ` } : s));
    expect(profilesDigest(edited)).not.toBe(digest);
    expect(decodeProfiles(encodeProfiles(digest, parsed), profilesDigest(edited))).toBeNull();
    expect(decodeProfiles('{"digest":', digest)).toBeNull();
    expect(decodeProfiles(JSON.stringify({ digest }), digest)).toBeNull();
  });

  it("the build's file matches the bundled profiles, and a start loads the same profiles from it", () => {
    const built = readFileSync(join(packageRoot(), ...COMPILED_PROFILES_PATH), 'utf8');
    expect(decodeProfiles(built, digest)).toEqual(parsed);
    const loaded = loadProfiles({ configDir: '/nonexistent-swb-config' });
    expect([...loaded.profiles.values()]).toEqual(parsed);
  });
});
