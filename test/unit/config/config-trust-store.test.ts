// The operator's trust store (src/config/config-trust-store.ts): a record per config path and
// content hash, kept private, and read as carefully as a key — a store that is corrupt, hostile or
// reachable by others trusts nothing, and recording trust then replaces it without following links.
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  forgetTrust,
  isTrustedIn,
  MAX_TRUST_STORE_BYTES,
  readTrustStore,
  recordTrust,
  TRUST_STORE_NAME,
  trustStorePath,
} from '../../../src/config/config-trust-store.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
let base: string;
let store: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'swb-trust-'));
  store = join(base, 'state', TRUST_STORE_NAME);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const entry = (path: string, sha256: string) => ({ path, sha256, trustedAt: '2026-12-05T00:00:00.000Z' });
function writeStore(value: unknown, mode = 0o600): void {
  mkdirSync(join(base, 'state'), { recursive: true, mode: 0o700 });
  writeFileSync(store, typeof value === 'string' ? value : JSON.stringify(value), { mode });
  chmodSync(store, mode);
}

describe('the trust store', () => {
  it('lives in the operator state dir: SWB_HOME/data, else $XDG_STATE_HOME/switchboard', () => {
    expect(trustStorePath({ SWB_HOME: '/h' })).toBe(`/h/data/${TRUST_STORE_NAME}`);
    expect(trustStorePath({ XDG_STATE_HOME: '/s', HOME: '/home/x' })).toBe(`/s/switchboard/${TRUST_STORE_NAME}`);
    expect(trustStorePath({ HOME: '/home/x' })).toBe(`/home/x/.local/state/switchboard/${TRUST_STORE_NAME}`);
  });

  it('records a path with its content hash; another content of the same path is not trusted', () => {
    expect(isTrustedIn(store, '/repo/switchboard.json', A)).toBe(false);
    const r = recordTrust(store, '/repo/switchboard.json', A);
    expect(r.ok).toBe(true);
    expect(isTrustedIn(store, '/repo/switchboard.json', A)).toBe(true);
    expect(isTrustedIn(store, '/repo/switchboard.json', B)).toBe(false);
    expect(isTrustedIn(store, '/other/switchboard.json', A)).toBe(false);
  });

  it('trusting a changed file replaces the old record: the old content is trusted no more', () => {
    recordTrust(store, '/repo/switchboard.json', A);
    recordTrust(store, '/elsewhere/switchboard.json', A);
    recordTrust(store, '/repo/switchboard.json', B);
    expect(isTrustedIn(store, '/repo/switchboard.json', B)).toBe(true);
    expect(isTrustedIn(store, '/repo/switchboard.json', A)).toBe(false);
    expect(isTrustedIn(store, '/elsewhere/switchboard.json', A)).toBe(true);
    expect(readTrustStore(store).entries).toHaveLength(2);
  });

  it('untrust forgets every record of the path, and only of that path', () => {
    recordTrust(store, '/repo/switchboard.json', A);
    recordTrust(store, '/elsewhere/switchboard.json', A);
    const r = forgetTrust(store, '/repo/switchboard.json');
    expect(r).toMatchObject({ ok: true, removed: 1 });
    expect(isTrustedIn(store, '/repo/switchboard.json', A)).toBe(false);
    expect(isTrustedIn(store, '/elsewhere/switchboard.json', A)).toBe(true);
    expect(forgetTrust(store, '/repo/switchboard.json')).toMatchObject({ ok: true, removed: 0 });
  });

  it('is a 0600 file in a 0700 directory, and a directory too open is tightened', () => {
    mkdirSync(join(base, 'state'), { mode: 0o755 });
    chmodSync(join(base, 'state'), 0o755);
    recordTrust(store, '/repo/switchboard.json', A);
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(statSync(join(base, 'state')).mode & 0o777).toBe(0o700);
    // No temporary file is left behind.
    expect(execFileSync('ls', ['-A', join(base, 'state')], { encoding: 'utf8' }).trim()).toBe(TRUST_STORE_NAME);
  });

  it('a corrupt store trusts nothing and says why; recording trust replaces it', () => {
    writeStore('{"version": 1, "trusted": [');
    expect(readTrustStore(store)).toMatchObject({ entries: [], problem: expect.stringContaining('is not valid JSON') });
    const r = recordTrust(store, '/repo/switchboard.json', A);
    expect(r).toMatchObject({ ok: true, replacedProblem: expect.stringContaining('is not valid JSON') });
    expect(readTrustStore(store)).toMatchObject({ entries: [entry('/repo/switchboard.json', A)].map((e) => ({ ...e, trustedAt: expect.any(String) })), problem: null });
  });

  it('a store of another shape, or with hostile entries, trusts none of what is wrong', () => {
    writeStore({ trusted: [entry('/repo/switchboard.json', A)] }); // no version
    expect(isTrustedIn(store, '/repo/switchboard.json', A)).toBe(false);
    writeStore({ version: 1, trusted: { '/repo/switchboard.json': A } });
    expect(isTrustedIn(store, '/repo/switchboard.json', A)).toBe(false);
    writeStore({
      version: 1,
      trusted: [
        entry('relative/switchboard.json', A),
        { path: '/repo/switchboard.json', sha256: 'not-a-hash', trustedAt: 'x' },
        { path: '/repo/switchboard.json', sha256: A.toUpperCase(), trustedAt: 'x' },
        { path: ['/repo/switchboard.json'], sha256: A, trustedAt: 'x' },
        { __proto__: { path: '/repo/switchboard.json', sha256: A, trustedAt: 'x' } },
        null,
        entry('/good/switchboard.json', A),
      ],
    });
    const read = readTrustStore(store);
    expect(read.entries.map((e) => e.path)).toEqual(['/good/switchboard.json']);
    expect(read.problem).toMatch(/6 entries are not valid/);
    expect(isTrustedIn(store, '/repo/switchboard.json', A)).toBe(false);
    expect(isTrustedIn(store, 'relative/switchboard.json', A)).toBe(false);
  });

  it('a store others may write trusts nothing (they could have added to it)', () => {
    writeStore({ version: 1, trusted: [entry('/repo/switchboard.json', A)] }, 0o622);
    expect(isTrustedIn(store, '/repo/switchboard.json', A)).toBe(false);
    expect(readTrustStore(store).problem).toMatch(/may be written by others \(mode 622\)/);
  });

  it('a symlink in the store\u2019s place is neither followed to read nor written through', () => {
    const elsewhere = join(base, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify({ version: 1, trusted: [entry('/repo/switchboard.json', A)] }), { mode: 0o600 });
    mkdirSync(join(base, 'state'), { mode: 0o700 });
    symlinkSync(elsewhere, store);
    expect(isTrustedIn(store, '/repo/switchboard.json', A)).toBe(false);
    expect(readTrustStore(store).problem).toMatch(/is a symbolic link/);
    const before = readFileSync(elsewhere, 'utf8');
    expect(recordTrust(store, '/other/switchboard.json', B).ok).toBe(true);
    expect(readFileSync(elsewhere, 'utf8')).toBe(before);
    expect(lstatSync(store).isSymbolicLink()).toBe(false);
    expect(isTrustedIn(store, '/other/switchboard.json', B)).toBe(true);
  });

  it('refuses an oversized store and a FIFO without hanging', () => {
    writeStore(`{"version":1,"trusted":[],"pad":"${'x'.repeat(MAX_TRUST_STORE_BYTES)}"}`);
    expect(readTrustStore(store).problem).toMatch(/is larger than/);
    rmSync(store);
    execFileSync('mkfifo', [store]);
    expect(readTrustStore(store).problem).toMatch(/is not a regular file/);
  });

  it('a store directory that is a symlink is not written through', () => {
    const target = join(base, 'target');
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, join(base, 'state'));
    const r = recordTrust(store, '/repo/switchboard.json', A);
    expect(r).toMatchObject({ ok: false, code: 'TRUST_STORE_UNSAFE' });
    expect(existsSync(join(target, TRUST_STORE_NAME))).toBe(false);
  });
});
