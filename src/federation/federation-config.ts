// How a workspace server joins other machines: the `federation` section of the config file, or
// `swb hub --federate URL --node NAME`. Checked here, before anything connects.
import { hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { NODE_NAME_HINT, NODE_NAME_PATTERN } from './remote-address.js';

export interface FederationSettings {
  /** nats://host:port (or tls://); a comma-separated list names several cluster members. */
  url: string;
  /** This node's name: unique among the federated servers; part of every remote address (`handle@node`). */
  node: string;
  /** A NATS .creds file (JWT + nkey seed), for servers set up with accounts. */
  credentials?: string;
  /** A NATS user, with its password read from `passwordFile` (never kept in the config itself). */
  user?: string;
  passwordFile?: string;
  tls?: { ca?: string; cert?: string; key?: string };
}

/** The host name as a node name (dots and other characters become -), for when none is given. */
export function defaultNodeName(host = hostname()): string {
  const name = host.split('.')[0]!.replace(/[^A-Za-z0-9_-]/g, '-').replace(/^-+/, '').slice(0, 64);
  return name || 'node';
}

const KEYS = new Set(['url', 'node', 'credentials', 'user', 'passwordFile', 'tls']);
const TLS_KEYS = new Set(['ca', 'cert', 'key']);

/** The `federation` value of a config file; errors name the path below `base` and what was expected. */
export function parseFederationSettings(value: unknown, base = 'federation'): { ok: FederationSettings } | { error: { path: string; message: string } } {
  const at = (path: string, message: string) => ({ error: { path: `${base}${path}`, message } });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return at('', 'expected an object {url, node, ...}');
  const v = value as Record<string, unknown>;
  for (const k of Object.keys(v)) if (!KEYS.has(k) || !Object.hasOwn(v, k)) return at(`.${k}`, `unknown key (expected one of ${[...KEYS].join(', ')})`);
  if (typeof v.url !== 'string' || !isNatsUrl(v.url)) return at('.url', 'expected nats://HOST:PORT (or tls://, several separated by commas)');
  const node = v.node === undefined ? defaultNodeName() : v.node;
  if (typeof node !== 'string' || !NODE_NAME_PATTERN.test(node)) return at('.node', `expected a node name (${NODE_NAME_HINT})`);
  const settings: FederationSettings = { url: v.url, node };
  for (const k of ['credentials', 'user', 'passwordFile'] as const) {
    if (v[k] === undefined) continue;
    if (typeof v[k] !== 'string' || v[k].length === 0 || v[k].length > 4096) return at(`.${k}`, 'expected a non-empty string');
    settings[k] = v[k];
  }
  if ((settings.user === undefined) !== (settings.passwordFile === undefined)) return at('', 'user and passwordFile go together');
  if (v.tls !== undefined) {
    if (typeof v.tls !== 'object' || v.tls === null || Array.isArray(v.tls)) return at('.tls', 'expected an object {ca?, cert?, key?}');
    const tls: Record<string, string> = {};
    for (const [k, f] of Object.entries(v.tls as Record<string, unknown>)) {
      if (!TLS_KEYS.has(k)) return at(`.tls.${k}`, 'unknown key (expected ca, cert, key)');
      if (typeof f !== 'string' || f.length === 0) return at(`.tls.${k}`, 'expected a file path');
      tls[k] = f;
    }
    settings.tls = tls;
  }
  return { ok: settings };
}

export function isNatsUrl(url: string): boolean {
  return url.split(',').every((u) => {
    const m = /^(nats|tls):\/\/([A-Za-z0-9.\-_]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/.exec(u.trim());
    return m !== null && (m[3] === undefined || (Number(m[3]) >= 1 && Number(m[3]) <= 65535));
  });
}

/** File paths in the settings, relative to the config file's directory. */
export function resolveFederationPaths(s: FederationSettings, baseDir: string): FederationSettings {
  const abs = (f: string | undefined) => (f === undefined || isAbsolute(f) ? f : resolve(baseDir, f));
  const out: FederationSettings = { ...s };
  if (s.credentials) out.credentials = abs(s.credentials)!;
  if (s.passwordFile) out.passwordFile = abs(s.passwordFile)!;
  if (s.tls) out.tls = Object.fromEntries(Object.entries(s.tls).map(([k, f]) => [k, abs(f)!]));
  return out;
}

/** `--federate URL [--node NAME]` over the config's section (the flags win). */
export function federationFromFlags(url: string | undefined, node: string | undefined, fromConfig: FederationSettings | undefined): { ok: FederationSettings | undefined } | { error: string } {
  if (url === undefined && node === undefined) return { ok: fromConfig };
  if (url === undefined && !fromConfig) return { error: '--node needs --federate URL (or a federation section in the config)' };
  const r = parseFederationSettings({ ...(fromConfig ?? {}), ...(url !== undefined ? { url } : {}), ...(node !== undefined ? { node } : {}) }, '--federate');
  return 'error' in r ? { error: `${r.error.path}: ${r.error.message}` } : { ok: r.ok };
}
