// The JSON Schemas swb ships for editors (schemas/*.schema.json) are generated from the zod schemas
// that parse the files: this regenerates them in memory and fails when the committed ones drift.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../../src/config/key-actions.js';
import { FILE_SCHEMA_NAMES, jsonSchemaOf, jsonSchemaText } from '../../../src/cli/file-schemas.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('schemas/*.schema.json', () => {
  it.each(FILE_SCHEMA_NAMES)('schemas/%s.schema.json is what the code generates', (name) => {
    const file = join(root, 'schemas', `${name}.schema.json`);
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : '(no such file)';
    expect(committed, `schemas/${name}.schema.json is out of date with its zod schema: run \`npm run schemas\` and commit the result`).toBe(jsonSchemaText(name));
  });
});

describe('the generated schemas', () => {
  it('describe the files as written: strict, "$schema" allowed, defaults not required', () => {
    for (const name of FILE_SCHEMA_NAMES) {
      const schema = jsonSchemaOf(name) as { additionalProperties?: unknown; properties: Record<string, unknown> };
      expect(schema.additionalProperties, name).toBe(false);
      expect(schema.properties.$schema, name).toMatchObject({ type: 'string' });
    }
    const profile = jsonSchemaOf('profile') as { required: string[] };
    expect(profile.required).toEqual(expect.arrayContaining(['format', 'id', 'rules', 'wakeLine']));
    expect(profile.required).not.toContain('quietMs');
  });

  it('offer every action under "keys", so an editor can complete them', () => {
    const config = jsonSchemaOf('config') as { properties: { keys: { properties: Record<string, unknown>; additionalProperties: unknown } } };
    expect(Object.keys(config.properties.keys.properties)).toEqual([...ACTIONS]);
    expect(config.properties.keys.additionalProperties).toBe(false);
  });
});
