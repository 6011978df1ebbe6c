// NATS decentralized auth (operator mode) for the federation tests, made here because the `nsc`
// tool that would normally make it is not installed: an operator, a system account and an SWB
// account with JetStream, as nkeys from @nats-io/nkeys, and JWTs signed by hand the way
// github.com/nats-io/jwt (v2) encodes them: base64url(header).base64url(claims).base64url(sig),
// the header {"typ":"JWT","alg":"ed25519-nkey"}, the signature the issuer nkey's ed25519 over
// `header.claims`, and `jti` the unpadded base32 of a SHA-512/256 over the claims without it (the
// server checks signatures, issuers and types, not the jti). Users come as .creds files (the user
// JWT and its nkey seed), whose allow lists are the shipped config's for that node.
import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccount, createOperator, createUser, type KeyPair } from '@nats-io/nkeys';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** All the limits of an account, unlimited (what nsc writes for a new account: -1 is no limit). */
const UNLIMITED = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };
/** JetStream is enabled for an account whose memory or disk storage limit is not 0. */
const JETSTREAM = { mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 };

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

const b64url = (data: string | Uint8Array) => Buffer.from(data).toString('base64url');

/** A NATS JWT for `subject`, signed by `issuer`; `nats` is the type-specific part of the claims. */
export function encodeJwt(issuer: KeyPair, subject: string, name: string, nats: Record<string, unknown>): string {
  const header = b64url(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' }));
  // Field order as nats-io/jwt's ClaimsData marshals it, for its jti.
  const base = { iat: Math.floor(Date.now() / 1000), iss: issuer.getPublicKey(), name, sub: subject };
  const jti = base32(createHash('sha512-256').update(JSON.stringify(base)).digest());
  const claims = b64url(JSON.stringify({ jti, ...base, nats: { ...nats, version: 2 } }));
  const sig = issuer.sign(new TextEncoder().encode(`${header}.${claims}`));
  return `${header}.${claims}.${b64url(sig)}`;
}

/** The text of a .creds file: the user JWT and the user's nkey seed, as nsc writes it. */
export function credsText(jwt: string, seed: Uint8Array): string {
  return [
    '-----BEGIN NATS USER JWT-----',
    jwt,
    '------END NATS USER JWT------',
    '',
    '************************* IMPORTANT *************************',
    'NKEY Seed printed below can be used to sign and prove identity.',
    'NKEYs are sensitive and should be treated as secrets.',
    '',
    '-----BEGIN USER NKEY SEED-----',
    new TextDecoder().decode(seed),
    '------END USER NKEY SEED------',
    '',
    '*************************************************************',
    '',
  ].join('\n');
}

export interface Permissions {
  pub: string[];
  sub: string[];
}

/**
 * A node's publish and subscribe allow lists as docs/federation/nats-server.conf gives them to
 * its `alpha` user, with the node's name in place of alpha's: the JWTs carry the least privilege
 * that is shipped (and change when it does), rather than a copy of it.
 */
export function shippedPermissions(node: string): Permissions {
  const conf = readFileSync(join(root, 'docs/federation/nats-server.conf'), 'utf8');
  const user = /\buser: alpha\n([\s\S]*?)(?:\buser: |$)/.exec(conf)?.[1];
  const allow = (what: 'publish' | 'subscribe') => {
    const list = user && new RegExp(`${what}: \\{\\s*allow: \\[([^\\]]*)\\]`).exec(user)?.[1];
    if (!list) throw new Error(`docs/federation/nats-server.conf: no ${what} allow list for user alpha`);
    return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]!.replace(/alpha/g, node));
  };
  return { pub: allow('publish'), sub: allow('subscribe') };
}

/** An operator that knows the SWB account (JetStream enabled) and a system account. */
export class NatsOperator {
  readonly operator = createOperator();
  readonly system = createAccount();
  /** The account the nodes' users belong to. */
  readonly account = createAccount();

  /**
   * The server's auth lines, in place of the shipped users (NatsServer.start's `auth`): trust this
   * operator (its JWT written in `dir`), and preload both accounts in a memory resolver.
   */
  serverConf(dir: string): string {
    const sys = this.system.getPublicKey();
    const swb = this.account.getPublicKey();
    const operatorJwt = join(dir, 'operator.jwt');
    writeFileSync(operatorJwt, encodeJwt(this.operator, this.operator.getPublicKey(), 'swb-test-operator', { type: 'operator', system_account: sys }));
    const sysJwt = encodeJwt(this.operator, sys, 'SYS', { type: 'account', limits: UNLIMITED });
    const swbJwt = encodeJwt(this.operator, swb, 'SWB', { type: 'account', limits: { ...UNLIMITED, ...JETSTREAM } });
    return [
      `operator: "${operatorJwt}"`,
      `system_account: ${sys}`,
      'resolver: MEMORY',
      'resolver_preload: {',
      `  ${sys}: "${sysJwt}"`,
      `  ${swb}: "${swbJwt}"`,
      '}',
    ].join('\n');
  }

  /**
   * A .creds file at `file` (mode 0600 unless `mode` says otherwise) for a user named `name` with
   * these permissions, signed by `signer` (the SWB account unless another is given) and carrying
   * `seed`'s user (a new user's unless given: a wrong seed, say).
   */
  writeCreds(file: string, name: string, perms: Permissions, opts: { signer?: KeyPair; seed?: Uint8Array; mode?: number } = {}): string {
    const user = createUser();
    const jwt = encodeJwt(opts.signer ?? this.account, user.getPublicKey(), name, {
      type: 'user',
      pub: { allow: perms.pub },
      sub: { allow: perms.sub },
      subs: -1,
      data: -1,
      payload: -1,
    });
    writeFileSync(file, credsText(jwt, opts.seed ?? user.getSeed()), { mode: 0o600 });
    chmodSync(file, opts.mode ?? 0o600);
    return file;
  }
}
