import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  defaultNodeName,
  federationFromFlags,
  isNatsUrl,
  parseFederationSettings,
  resolveFederationPaths,
  type FederationSettings,
} from '../../../src/config/federation-config.js';
import { isValidNodeName } from '../../../src/protocol/remote-address.js';

function ok(value: unknown): FederationSettings {
  const r = parseFederationSettings(value);
  if ('error' in r) throw new Error(`${r.error.path}: ${r.error.message}`);
  return r.ok;
}

function errorOf(value: unknown, base?: string): { path: string; message: string } {
  const r = parseFederationSettings(value, base);
  if (!('error' in r)) throw new Error(`accepted: ${JSON.stringify(r.ok)}`);
  return r.error;
}

describe('defaultNodeName', () => {
  it('takes the first label of the host name', () => {
    expect(defaultNodeName('build-01.example.com')).toBe('build-01');
    expect(defaultNodeName('laptop')).toBe('laptop');
  });

  it('turns other characters into -, drops leading -, and keeps 64 at most', () => {
    expect(defaultNodeName('my host')).toBe('my-host');
    expect(defaultNodeName('--lead')).toBe('lead');
    expect(defaultNodeName('über')).toBe('ber');
    expect(defaultNodeName('h'.repeat(80))).toBe('h'.repeat(64));
  });

  it('falls back to "node" when nothing usable is left', () => {
    expect(defaultNodeName('')).toBe('node');
    expect(defaultNodeName('.local')).toBe('node');
    expect(defaultNodeName('---')).toBe('node');
  });

  it('always gives a valid node name, the real host name included', () => {
    for (const h of ['a.b.c', 'ÄÖÜ.x', ' spaced ', '_under', '-'.repeat(70) + 'x', hostname()]) {
      expect(isValidNodeName(defaultNodeName(h)), h).toBe(true);
    }
    expect(defaultNodeName()).toBe(defaultNodeName(hostname()));
  });
});

describe('isNatsUrl', () => {
  it('takes nats:// and tls:// with an optional port, and comma-separated lists', () => {
    for (const good of ['nats://localhost:4222', 'tls://nats.example.com:4443', 'nats://10.0.0.1', 'nats://a:1, nats://b:2', 'nats://[::1]:4222']) {
      expect(isNatsUrl(good), good).toBe(true);
    }
  });

  it('refuses other schemes, missing hosts, paths, credentials in the URL and long ports', () => {
    for (const bad of ['http://x:4222', 'localhost:4222', 'nats://', 'nats://x:4222/path', 'nats://user:pw@x:4222', 'nats://a:1,', '']) {
      expect(isNatsUrl(bad), bad).toBe(false);
    }
  });
});

describe('parseFederationSettings', () => {
  it('reads url and node', () => {
    expect(ok({ url: 'nats://hub:4222', node: 'build' })).toEqual({ url: 'nats://hub:4222', node: 'build' });
  });

  it('uses the host name as the node when none is given', () => {
    expect(ok({ url: 'nats://hub:4222' }).node).toBe(defaultNodeName());
  });

  it('keeps credentials, user with passwordFile, and tls files', () => {
    const s = ok({ url: 'tls://hub:4443', node: 'n1', credentials: 'a.creds', user: 'u', passwordFile: 'pw', tls: { ca: 'ca.pem', cert: 'c.pem', key: 'k.pem' } });
    expect(s).toEqual({ url: 'tls://hub:4443', node: 'n1', credentials: 'a.creds', user: 'u', passwordFile: 'pw', tls: { ca: 'ca.pem', cert: 'c.pem', key: 'k.pem' } });
  });

  it('refuses a value that is not an object', () => {
    for (const bad of [null, 'nats://x', 3, ['nats://x']]) expect(errorOf(bad).path, String(bad)).toBe('federation');
  });

  it('names an unknown key by its path', () => {
    // In the words every swb file uses (src/util/schema-wording.ts).
    expect(errorOf({ url: 'nats://x:1', node: 'a', password: 'secret' })).toEqual({ path: 'federation.password', message: expect.stringContaining('unknown field (expected one of: url, node') });
    expect(errorOf(JSON.parse('{"url":"nats://x:1","__proto__":{"node":"x"}}')).path).toBe('federation.__proto__');
  });

  it('refuses a missing or bad url', () => {
    expect(errorOf({ node: 'a' }).path).toBe('federation.url');
    expect(errorOf({ url: 'http://x', node: 'a' }).path).toBe('federation.url');
    expect(errorOf({ url: 4222, node: 'a' }).path).toBe('federation.url');
  });

  it('refuses a node name with a dot or another bad node', () => {
    for (const node of ['build.example', '-x', '', 'x'.repeat(65)]) {
      const e = errorOf({ url: 'nats://x:1', node });
      expect(e.path, String(node)).toBe('federation.node');
      expect(e.message).toContain('node name');
    }
    expect(errorOf({ url: 'nats://x:1', node: 7 })).toEqual({ path: 'federation.node', message: 'expected a string, got number 7' });
  });

  it('refuses empty, non-string or huge credential fields', () => {
    expect(errorOf({ url: 'nats://x:1', node: 'a', credentials: '' }).path).toBe('federation.credentials');
    expect(errorOf({ url: 'nats://x:1', node: 'a', credentials: 5 }).path).toBe('federation.credentials');
    expect(errorOf({ url: 'nats://x:1', node: 'a', credentials: 'c'.repeat(4097) }).path).toBe('federation.credentials');
    expect(ok({ url: 'nats://x:1', node: 'a', credentials: 'c'.repeat(4096) }).credentials).toHaveLength(4096);
  });

  it('wants user and passwordFile together', () => {
    expect(errorOf({ url: 'nats://x:1', node: 'a', user: 'u' })).toEqual({ path: 'federation', message: 'user and passwordFile go together' });
    expect(errorOf({ url: 'nats://x:1', node: 'a', passwordFile: 'pw' })).toEqual({ path: 'federation', message: 'user and passwordFile go together' });
  });

  it('checks the tls section key by key', () => {
    expect(errorOf({ url: 'tls://x:1', node: 'a', tls: 'yes' }).path).toBe('federation.tls');
    expect(errorOf({ url: 'tls://x:1', node: 'a', tls: ['ca'] }).path).toBe('federation.tls');
    expect(errorOf({ url: 'tls://x:1', node: 'a', tls: { ca: 'ca.pem', verify: false } }).path).toBe('federation.tls.verify');
    expect(errorOf({ url: 'tls://x:1', node: 'a', tls: { key: '' } }).path).toBe('federation.tls.key');
    expect(ok({ url: 'tls://x:1', node: 'a', tls: {} }).tls).toEqual({});
  });

  it('puts its paths below the base it is given', () => {
    expect(errorOf({ url: 'bad', node: 'a' }, 'servers[2].federation').path).toBe('servers[2].federation.url');
  });
});

describe('resolveFederationPaths', () => {
  it('makes relative file paths relative to the config directory and leaves absolute ones alone', () => {
    const base = join('/', 'home', 'me', '.config', 'switchboard');
    const s: FederationSettings = { url: 'tls://x:1', node: 'a', credentials: 'nats/a.creds', user: 'u', passwordFile: '/etc/swb/pw', tls: { ca: 'ca.pem', cert: '/abs/c.pem' } };
    const out = resolveFederationPaths(s, base);
    expect(out).toEqual({
      url: 'tls://x:1',
      node: 'a',
      credentials: join(base, 'nats', 'a.creds'),
      user: 'u',
      passwordFile: '/etc/swb/pw',
      tls: { ca: join(base, 'ca.pem'), cert: '/abs/c.pem' },
    });
    // The input is not changed.
    expect(s.credentials).toBe('nats/a.creds');
    expect(s.tls).toEqual({ ca: 'ca.pem', cert: '/abs/c.pem' });
  });

  it('adds no keys that were not there', () => {
    expect(resolveFederationPaths({ url: 'nats://x:1', node: 'a' }, '/base')).toEqual({ url: 'nats://x:1', node: 'a' });
  });
});

describe('federationFromFlags', () => {
  const config: FederationSettings = { url: 'nats://from-config:4222', node: 'cfg', credentials: '/abs/a.creds' };

  it('without flags keeps what the config says (or nothing)', () => {
    expect(federationFromFlags(undefined, undefined, config)).toEqual({ ok: config });
    expect(federationFromFlags(undefined, undefined, undefined)).toEqual({ ok: undefined });
  });

  it('lets the flags win over the config section', () => {
    expect(federationFromFlags('nats://flag:1', 'flagnode', config)).toEqual({ ok: { url: 'nats://flag:1', node: 'flagnode', credentials: '/abs/a.creds' } });
    expect(federationFromFlags(undefined, 'other', config)).toEqual({ ok: { ...config, node: 'other' } });
    expect(federationFromFlags('nats://flag:1', undefined, config)).toEqual({ ok: { ...config, url: 'nats://flag:1' } });
  });

  it('with --federate alone uses the host name as node', () => {
    expect(federationFromFlags('nats://flag:1', undefined, undefined)).toEqual({ ok: { url: 'nats://flag:1', node: defaultNodeName() } });
  });

  it('refuses --node without a URL from anywhere', () => {
    const r = federationFromFlags(undefined, 'n', undefined);
    expect(r).toEqual({ error: expect.stringContaining('--node needs --federate') });
  });

  it('reports a bad flag value under --federate', () => {
    expect(federationFromFlags('http://x', 'n', undefined)).toEqual({ error: expect.stringMatching(/^--federate\.url: /) });
    expect(federationFromFlags('nats://x:1', 'a.b', undefined)).toEqual({ error: expect.stringMatching(/^--federate\.node: expected a node name/) });
  });
  it('resolves ~/ against the home directory in file paths', () => {
    const r = resolveFederationPaths({ url: 'nats://x:1', node: 'a', user: 'u', passwordFile: '~/.config/switchboard/pw' }, '/etc/cfg', '/home/op');
    expect(r.passwordFile).toBe('/home/op/.config/switchboard/pw');
  });
});
