// `npm run schemas`: writes schemas/NAME.schema.json (config, theme, profile) from the zod schemas
// in the compiled sources, the same text `swb schema NAME` prints. test/unit/cli/file-schemas.test.ts
// fails when the committed files differ from what the code generates.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { FILE_SCHEMA_NAMES, jsonSchemaText } = await import(`${root}dist/src/cli/file-schemas.js`);
mkdirSync(`${root}schemas`, { recursive: true });
for (const name of FILE_SCHEMA_NAMES) {
  writeFileSync(`${root}schemas/${name}.schema.json`, jsonSchemaText(name));
  process.stdout.write(`schemas/${name}.schema.json\n`);
}
