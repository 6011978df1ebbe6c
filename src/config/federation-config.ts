// How a workspace server joins other machines: the `federation` section of the config file, or
// `swb hub --federate URL --node NAME`. Checked here, before anything connects. A part of the config
// (its schema is a section of config-schema.ts), so it lives with the config, below src/federation/.
import { homedir, hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import * as z from 'zod';
import { lazySchema } from '../protocol/lazy-schema.js';
import { checkFile } from '../util/schema.js';
import { NODE_NAME_HINT, NODE_NAME_PATTERN } from '../protocol/remote-address.js';

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

const filePath = lazySchema(() => z.string().min(1).max(4096));

/** The `federation` section, as zod checks it (and as `swb schema config` describes it to editors); built at its first use (protocol/lazy-schema.ts says why). */
export const federationSettingsSchema = lazySchema(() =>
  z
    .strictObject({
      url: z
        .string()
        .refine(isNatsUrl, { message: 'expected nats://HOST:PORT (or tls://, several separated by commas)' })
        .describe('The NATS JetStream server: nats://HOST:PORT or tls://HOST:PORT; several cluster members separated by commas.'),
      node: z.optional(
        z.string().regex(NODE_NAME_PATTERN, { message: `expected a node name (${NODE_NAME_HINT})` }).describe("This node's name among the federated servers (default: the host name): remote rows are handle@node."),
      ),
      credentials: z.optional(filePath().describe('A NATS .creds file (JWT and nkey seed); 0600.')),
      user: z.optional(z.string().min(1).max(4096).describe("This node's NATS user (with passwordFile).")),
      passwordFile: z.optional(filePath().describe("A file holding the user's password (never the password itself); 0600.")),
      tls: z.optional(
        z.strictObject({ ca: z.optional(filePath()), cert: z.optional(filePath()), key: z.optional(filePath()) }).describe('TLS files for tls:// URLs: ca, cert, key.'),
      ),
    })
    .refine((s) => (s.user === undefined) === (s.passwordFile === undefined), { message: 'user and passwordFile go together' })
    .transform((s): FederationSettings => ({ ...s, node: s.node ?? defaultNodeName() }))
    .describe('Mail across machines through NATS JetStream (docs/FEDERATION.md).'),
);

/** The `federation` value of a config file; errors name the path below `base` and what was expected. */
export function parseFederationSettings(value: unknown, base = 'federation'): { ok: FederationSettings } | { error: { path: string; message: string } } {
  const r = checkFile(federationSettingsSchema(), value);
  if (r.ok) return { ok: r.value };
  const below = r.error.path;
  return { error: { path: below === '' ? base : below.startsWith('[') ? `${base}${below}` : base === '' ? below : `${base}.${below}`, message: r.error.problem } };
}

export function isNatsUrl(url: string): boolean {
  return url.split(',').every((u) => {
    const m = /^(nats|tls):\/\/([A-Za-z0-9.\-_]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/.exec(u.trim());
    return m !== null && (m[3] === undefined || (Number(m[3]) >= 1 && Number(m[3]) <= 65535));
  });
}

/** File paths in the settings: `~/` is the home directory, anything else relative to the config file's directory. */
export function resolveFederationPaths(s: FederationSettings, baseDir: string, home = homedir()): FederationSettings {
  const abs = (f: string | undefined) => (f === undefined || isAbsolute(f) ? f : f.startsWith('~/') ? join(home, f.slice(2)) : resolve(baseDir, f));
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
