// checkConfig checks a file with the schemas of the sections it has (config-schema.ts,
// configSchemaFor), not the whole file schema: the answer must be the whole schema's, value and
// problems alike, for files of every kind.
import { describe, expect, it } from 'vitest';
import { checkConfig, configFileSchema, parseConfig } from '../../../src/config/config-schema.js';
import { checkFile } from '../../../src/util/schema.js';

/** What the whole file schema says of `value`, as checkConfig words it. */
function wholeSchemaSays(value: unknown) {
  const whole = checkFile(configFileSchema(), value);
  if (!whole.ok) return { ok: false, problems: whole.error.all };
  const { $schema: _editorOnly, rows, ...rest } = whole.value;
  return { ok: true, value: { rows: rows ?? [], ...rest } };
}

function checkConfigSays(value: unknown) {
  const r = checkConfig(value);
  return r.ok ? { ok: true, value: r.value } : { ok: false, problems: r.error.all };
}

const FILES: Array<[string, unknown]> = [
  ['an empty file', {}],
  ['one section', { scrollback: 5000 }],
  [
    'many sections, $schema among them',
    {
      $schema: './switchboard.schema.json',
      rows: [{ name: 'lead', profile: 'claude', cwd: 'web', wake: 'auto', worktree: { branch: 'b' } }, { command: 'npm run watch', env: { NODE_ENV: 'development' } }],
      theme: 'light',
      keys: { compose: ['m', '@'], quit: 'Q' },
      limits: { maxUnread: 0, rate: 5 },
      notify: { terminal: 'bell', events: { mail: ['terminal'] }, quietHours: { from: '22:00', to: '07:00' } },
      usage: { budgets: { workspace: { tokens: 10 } } },
      federation: { url: 'nats://127.0.0.1:4222', node: 'n1' },
      web: { port: 0 },
      mouse: false,
    },
  ],
  ['a bad value in one section', { scrollback: -1 }],
  ['bad values in several sections, in another order than the schema', { limits: { maxUnread: -1 }, layout: 'tiles', rows: [{ command: 'x', wake: 'sometimes' }, { name: 'b', colour: 'red', command: 'y' }] }],
  ['a cross-field rule inside a section', { limits: { maxFrameBytes: 4096, maxMessageBytes: 4096 } }],
  ['an unknown field beside good ones', { scrollback: 10, colour: 'red' }],
  ['an unknown field only', { fly: true }],
  ['a __proto__ field', JSON.parse('{"__proto__": {"rows": []}, "theme": "dark"}')],
  ['not an object', 'rows'],
  ['an array', [{ command: 'x' }]],
  ['null', null],
];

describe('checkConfig with the sections a file has', () => {
  for (const [what, value] of FILES) {
    it(`says what the whole schema says: ${what}`, () => {
      expect(checkConfigSays(value)).toEqual(wholeSchemaSays(value));
    });
  }

  it('parses a file again the same way (its sections schema kept)', () => {
    const file = { scrollback: 3, layout: 'grid' };
    expect(parseConfig(file)).toEqual({ rows: [], scrollback: 3, layout: 'grid' });
    expect(parseConfig(file)).toEqual({ rows: [], scrollback: 3, layout: 'grid' });
    expect(() => parseConfig({ ...file, layout: 'tiles' })).toThrow(/layout/);
  });
});
