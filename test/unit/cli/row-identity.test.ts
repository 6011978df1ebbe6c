import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findRowIdentity } from '../../../src/cli/row-identity.js';

const root = mkdtempSync(join(tmpdir(), 'swb-fake-proc-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fake /proc: each process with its parent, comm and environment. */
function proc(name: string, table: Array<{ pid: number; ppid: number; comm?: string; env?: Record<string, string> }>): string {
  const dir = join(root, name);
  for (const p of table) {
    mkdirSync(join(dir, String(p.pid)), { recursive: true });
    writeFileSync(join(dir, String(p.pid), 'stat'), `${p.pid} (${p.comm ?? 'sh'}) S ${p.ppid} ${p.pid} ${p.pid} 0 -1\n`);
    if (p.env) writeFileSync(join(dir, String(p.pid), 'environ'), Object.entries(p.env).map(([k, v]) => `${k}=${v}\0`).join(''));
  }
  return dir;
}

const ROW = { SWB_SESSION: 'rowan', SWB_TOKEN: 'tok-rowan', SWB_SOCKET: '/run/x/hub.sock', PATH: '/bin' };

describe.runIf(process.platform === 'linux')('findRowIdentity', () => {
  it('takes the environment when SWB_SESSION and SWB_TOKEN are both set, without looking further', () => {
    expect(findRowIdentity({ SWB_SESSION: 'a', SWB_TOKEN: 't' }, { procRoot: '/nonexistent' })).toEqual({ session: 'a', token: 't', from: 'env' });
  });

  it('finds the nearest ancestor whose environment names a row (comm with spaces and parens)', () => {
    const p = proc('nearest', [
      { pid: 40, ppid: 30, comm: 'bash', env: { PATH: '/bin' } },
      { pid: 30, ppid: 20, comm: 'node (gemini) x', env: ROW },
      { pid: 20, ppid: 1, env: { SWB_SESSION: 'outer', SWB_TOKEN: 'tok-outer' } },
    ]);
    expect(findRowIdentity({}, { ppid: 40, procRoot: p })).toEqual({ session: 'rowan', token: 'tok-rowan', socket: '/run/x/hub.sock', from: 30 });
  });

  it('with SWB_SESSION set but no token, only an ancestor of that same row counts', () => {
    const p = proc('same-row', [
      { pid: 40, ppid: 30, env: { SWB_SESSION: 'other', SWB_TOKEN: 'tok-other' } },
      { pid: 30, ppid: 1, env: ROW },
    ]);
    expect(findRowIdentity({ SWB_SESSION: 'rowan' }, { ppid: 40, procRoot: p })?.from).toBe(30);
    expect(findRowIdentity({ SWB_SESSION: 'nobody' }, { ppid: 40, procRoot: p })).toBeUndefined();
  });

  it('is undefined outside a row, skips unreadable ancestors, and stops on a loop', () => {
    const p = proc('none', [
      { pid: 50, ppid: 40 }, // no environ file: another user's process
      { pid: 40, ppid: 40, env: { PATH: '/bin' } }, // its own parent
    ]);
    expect(findRowIdentity({}, { ppid: 50, procRoot: p })).toBeUndefined();
    const q = proc('unreadable', [
      { pid: 50, ppid: 40 },
      { pid: 40, ppid: 1, env: ROW },
    ]);
    expect(findRowIdentity({}, { ppid: 50, procRoot: q })?.session).toBe('rowan');
  });
});
