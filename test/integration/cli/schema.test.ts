// `swb schema config|theme|profile`: the real binary prints the JSON Schema the repository ships,
// needs no hub, and a name it does not know is a usage error (exit 2).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/util/package-root.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { runSwb } from '../../helpers/run-swb.js';
import { createTempHome } from '../../helpers/temp-home.js';

afterEach(runCleanups);

describe('swb schema', () => {
  it('prints the shipped schema of each kind of file, and --json gives the same document', async () => {
    const home = createTempHome();
    for (const name of ['config', 'theme', 'profile']) {
      const r = await runSwb(['schema', name], { home });
      expect({ name, status: r.status, stderr: r.stderr }).toEqual({ name, status: 0, stderr: '' });
      expect(r.stdout).toBe(readFileSync(`${packageRoot()}/schemas/${name}.schema.json`, 'utf8'));
    }
    const json = await runSwb(['schema', 'theme', '--json'], { home });
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(readFileSync(`${packageRoot()}/schemas/theme.schema.json`, 'utf8')));
  });

  it('refuses a name it does not know, or none, as usage errors (exit 2)', async () => {
    const home = createTempHome();
    const [unknown, none] = await Promise.all([runSwb(['schema', 'keymap'], { home }), runSwb(['schema'], { home })]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^swb schema: "keymap": expected config, theme, profile/);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/expected config\|theme\|profile/);
  });
});
