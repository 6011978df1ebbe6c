import { describe, expect, it } from 'vitest';
import { launchWarnings } from '../../../src/app/launch-warnings.js';

describe('launchWarnings', () => {
  it('warns about a codex command line without a config override (it would share Codex’s background server)', () => {
    const [w] = launchWarnings({ name: 'cx', profile: 'codex', command: 'codex --model o4' });
    expect(w).toMatch(/^cx: codex started without a -c option shares Codex's background server/);
    expect(w).toMatch(/Add -c allow_login_shell=false/);
  });

  it('is quiet for the codex profile’s own command and for command lines with an override', () => {
    expect(launchWarnings({ name: 'cx', profile: 'codex', command: undefined })).toEqual([]);
    for (const command of ['codex -c allow_login_shell=false', 'codex --config x=1', 'codex --enable foo', 'codex --disable=tui_app_server', "'/opt/codex' -c a=b", "'/opt/codex' '-c' 'a=b'", '"codex" "--config=x=1"']) {
      expect(launchWarnings({ name: 'cx', profile: 'codex', command }), command).toEqual([]);
    }
  });

  it('says nothing about other agents', () => {
    expect(launchWarnings({ name: 'c', profile: 'claude', command: 'claude' })).toEqual([]);
    expect(launchWarnings({ name: 's', profile: undefined, command: 'codex' })).toEqual([]); // no codex profile: not an agent row
  });
});
