// NODE_EXTRA_CA_CERTS makes node read and parse that file before any JavaScript runs: about 130 ms
// for a system bundle of 140 certificates, measured here, on every `swb`, `swb attach`, `swb send`
// and every hook call an agent makes. Those commands speak to swb over a Unix socket and never check
// a certificate, so the `swb` command (bin/swb, a shell script; the rows' launcher runs it too) hands
// the setting on under another name and the entry (bin/swb.ts) puts it back at once, for whatever
// this process starts: a server (and through it the rows, whose agents may need the CA to reach
// their model API). `hub` may speak TLS to NATS (federation) and keeps it as it is; the server the
// client launches gets it set aside too (caCertsAside, issue #33: 60 ms of every cold start) and
// hands its NATS link those authorities itself (src/federation/nats-extra-ca.ts).

/** Where bin/swb keeps NODE_EXTRA_CA_CERTS while a CLI command starts. */
export const CA_CERTS_ASIDE = 'SWB_NODE_EXTRA_CA_CERTS';

/** Puts a NODE_EXTRA_CA_CERTS the launcher set aside back into `env` (one the caller set wins). */
export function restoreCaCerts(env: NodeJS.ProcessEnv): void {
  const aside = env[CA_CERTS_ASIDE];
  if (aside === undefined) return;
  delete env[CA_CERTS_ASIDE];
  if (!env.NODE_EXTRA_CA_CERTS) env.NODE_EXTRA_CA_CERTS = aside;
}

/** `env` with NODE_EXTRA_CA_CERTS set aside for a swb process that puts it back (bin/swb.ts) after its node started. */
export function caCertsAside(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const ca = env.NODE_EXTRA_CA_CERTS;
  if (!ca) return env;
  const out: NodeJS.ProcessEnv = { ...env, [CA_CERTS_ASIDE]: ca };
  delete out.NODE_EXTRA_CA_CERTS;
  return out;
}
