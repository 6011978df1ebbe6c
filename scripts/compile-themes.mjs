// After tsc: checks the bundled themes once, here, and writes them for the server to take at start
// without building the theme schema (src/config/compiled-themes.ts says why). A bundled theme that
// does not pass its schema, or is not named after its file, fails the build.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_THEME_BYTES, parseTheme } from '../dist/src/config/theme.js';
import { readJsonFile } from '../dist/src/config/read-json-file.js';
import { COMPILED_THEMES_PATH, encodeThemes } from '../dist/src/config/compiled-themes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, 'themes');
const themes = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  const read = readJsonFile(join(dir, file), MAX_THEME_BYTES);
  if (!read.ok) throw new Error(read.message);
  const theme = parseTheme(read.value);
  if (`${theme.name}.json` !== file) throw new Error(`themes/${file}: name: is ${JSON.stringify(theme.name)} but the file is ${file}`);
  themes.push({ file, sha256: read.sha256, theme });
}
const out = join(root, ...COMPILED_THEMES_PATH);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, encodeThemes(themes));
