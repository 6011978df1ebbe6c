import { describe, expect, test } from 'vitest';
import { buildRowEnv } from '../../../src/rows/row-env.js';

describe('buildRowEnv', () => {
  const base = { PATH: '/usr/bin:/bin', HOME: '/home/op', TERM: 'screen', TMUX: '/tmp/tmux', SWB_TOKEN: 'parent', LINES: '50' };

  test('sets the terminal type, colour support and the row identity', () => {
    const env = buildRowEnv({ base, identity: { socket: '/run/hub.sock', session: 'alice', token: 't1' } });
    expect(env).toMatchObject({
      TERM: 'xterm-256color',
      COLORTERM: 'truecolor',
      SWB_SOCKET: '/run/hub.sock',
      SWB_SESSION: 'alice',
      SWB_TOKEN: 't1',
      HOME: '/home/op',
    });
  });

  test("drops the outer terminal's and an outer swb's variables", () => {
    const env = buildRowEnv({ base });
    expect(env.TMUX).toBeUndefined();
    expect(env.LINES).toBeUndefined();
    expect(env.SWB_TOKEN).toBeUndefined();
  });

  test("puts swb's bin dir first on PATH exactly once", () => {
    const env = buildRowEnv({ base: { PATH: '/usr/bin:/opt/swb/bin:/bin' }, binDir: '/opt/swb/bin' });
    expect(env.PATH).toBe('/opt/swb/bin:/usr/bin:/bin');
  });

  test("applies the row's own variables; undefined removes one", () => {
    const env = buildRowEnv({ base, extra: { FOO: 'bar', HOME: undefined } });
    expect(env.FOO).toBe('bar');
    expect('HOME' in env).toBe(false);
  });

  test('the row cannot override its identity', () => {
    const env = buildRowEnv({ base, extra: { SWB_SESSION: 'mallory' }, identity: { socket: 's', session: 'alice', token: 't' } });
    expect(env.SWB_SESSION).toBe('alice');
  });
});
