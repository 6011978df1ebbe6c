// The JSON Schemas of the files an operator writes (config, theme, agent profile), generated from the
// zod schemas that parse them, so an editor judges a file as swb will. `swb schema NAME` prints one;
// schemas/NAME.schema.json are the same, committed for editors (`npm run schemas` rewrites them, and a
// unit test fails when they drift from the code). It gathers from src/config/ and src/agents/, so it
// stands above both, beside the command that prints it.
import * as z from 'zod';
import { profileFileSchema } from '../agents/profile-schema.js';
import { configFileSchema } from '../config/config-schema.js';
import { themeFileSchema } from '../config/theme.js';

// Each as a function: each is built at its first use (lazySchema in util/schema.ts says why).
export const FILE_SCHEMAS = { config: configFileSchema, theme: themeFileSchema, profile: profileFileSchema } as const;
export type FileSchemaName = keyof typeof FILE_SCHEMAS;
export const FILE_SCHEMA_NAMES = Object.keys(FILE_SCHEMAS) as FileSchemaName[];

export function isFileSchemaName(name: string): name is FileSchemaName {
  return Object.hasOwn(FILE_SCHEMAS, name);
}

/**
 * The schema of the file as written (zod's input side: before defaults and transforms), in draft-07,
 * which editors understand best.
 */
export function jsonSchemaOf(name: FileSchemaName): Record<string, unknown> {
  return z.toJSONSchema(FILE_SCHEMAS[name](), { io: 'input', target: 'draft-07' });
}

/** The text of schemas/NAME.schema.json. */
export function jsonSchemaText(name: FileSchemaName): string {
  return `${JSON.stringify(jsonSchemaOf(name), null, 2)}\n`;
}
