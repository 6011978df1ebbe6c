// After tsc: parses and checks the bundled agent profiles once, here, and writes them for the server
// to read at start without parsing them again (src/agents/compiled-profiles.ts says why). A bundled
// profile that does not pass its schema fails the build.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledProfileSources, parseBundledProfiles } from '../dist/src/agents/load-profiles.js';
import { COMPILED_PROFILES_PATH, encodeProfiles, profilesDigest } from '../dist/src/agents/compiled-profiles.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const sources = bundledProfileSources();
const file = join(root, ...COMPILED_PROFILES_PATH);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, encodeProfiles(profilesDigest(sources), parseBundledProfiles(sources)));
