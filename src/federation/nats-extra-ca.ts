// The certificate authorities NODE_EXTRA_CA_CERTS names, for the NATS connection only (issue #33).
// Node reads and parses that file before any JavaScript runs — about 60 ms of the server's start,
// on every start, for a bundle of system certificates — and the one thing in the server that checks
// a certificate is its TLS link to NATS (federation). So the server is launched with the setting
// set aside (src/client/server-launch.ts, src/util/ca-certs-aside.ts: its rows still get it as the
// operator had it), and the link adds those authorities to node's own here, when it connects over
// TLS: `ca` replaces node's default roots, so they go together. A `federation.tls.ca` in the config
// names the link's authorities itself and wins, as it always did.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

/**
 * Node's root certificates and the PEM file NODE_EXTRA_CA_CERTS names in `env`, as one PEM text (tls
 * takes several certificates in one string), or undefined when it names none. A file that cannot be
 * read adds nothing, as node itself does (with a warning).
 */
export function natsExtraCa(env: NodeJS.ProcessEnv, warn: (line: string) => void): string | undefined {
  const file = env.NODE_EXTRA_CA_CERTS;
  if (!file) return undefined;
  try {
    return [...rootCertificates, readFileSync(file, 'utf8')].join('\n');
  } catch (err) {
    warn(`Ignoring extra certs from \`${file}\`, load failed: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return undefined;
  }
}
