// `swb web`: serve the browser client from the running server and print its URL once, with a fresh
// token (and a QR code of it for a phone). The token is minted by the server through the operator-
// only hub method `server.web`: inside a row the operator identity is refused, so no agent can get
// one. --rotate revokes every earlier token and every browser's cookie and page key first.
import { resolve } from 'node:path';
import { renderUnicodeCompact } from 'uqr';
import type { WebAnswer } from '../hub/server-control.js';
import { UsageError, type CommandDescriptor } from './command.js';

export const webCommand: CommandDescriptor = {
  name: 'web',
  summary: 'Serve the browser client (every row live, mail, the composer) and print its URL once, with a fresh token (operator only).',
  usage: '[--port P] [--bind ADDR] [--read-only] [--rotate] [--tls-cert FILE --tls-key FILE] [--insecure] [--no-qr]',
  maxArgs: 0,
  flags: [
    { name: 'port', type: 'string', value: 'P', description: 'TCP port (default: the one it serves on, or any free one)' },
    { name: 'bind', type: 'string', value: 'ADDR', description: 'address to listen on (default 127.0.0.1); anything but loopback needs TLS or --insecure' },
    { name: 'read-only', type: 'boolean', description: 'a view-only token: sees everything, can type, send or close nothing' },
    { name: 'rotate', type: 'boolean', description: 'revoke every earlier token and every browser login first' },
    { name: 'tls-cert', type: 'string', value: 'FILE', description: 'PEM certificate: serve over HTTPS' },
    { name: 'tls-key', type: 'string', value: 'FILE', description: 'PEM private key for --tls-cert' },
    { name: 'insecure', type: 'boolean', description: 'allow a non-loopback --bind without TLS (warned about)' },
    { name: 'no-qr', type: 'boolean', description: 'do not print the QR code' },
  ],
  details:
    'The URL carries a token in its fragment (never sent to a server) that the page exchanges for a cookie (HttpOnly, SameSite=Strict) and a page key kept by the page, then drops from the address bar. ' +
    'The same token, as "Authorization: Bearer TOKEN", speaks as the operator to the HTTP API (docs/PROTOCOL.md, "HTTP API"). ' +
    'For a phone away from the desk: ssh -L 8080:127.0.0.1:PORT host, or tailscale serve (README, "Browser").',
  async run(ctx) {
    const port = ctx.flags.port as string | undefined;
    if (port !== undefined && !/^\d{1,5}$/.test(port)) throw new UsageError(`--port ${JSON.stringify(port)}: a number from 0 to 65535`);
    const portNumber = port === undefined ? undefined : Number(port);
    if (portNumber !== undefined && portNumber > 65535) throw new UsageError(`--port ${port}: a number from 0 to 65535`);
    const cert = ctx.flags['tls-cert'] as string | undefined;
    const key = ctx.flags['tls-key'] as string | undefined;
    if ((cert === undefined) !== (key === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
    const params = {
      ...(portNumber !== undefined ? { port: portNumber } : {}),
      ...(ctx.flags.bind !== undefined ? { bind: ctx.flags.bind as string } : {}),
      ...(ctx.flags['read-only'] === true ? { readOnly: true } : {}),
      ...(ctx.flags.rotate === true ? { rotate: true } : {}),
      // The server reads the files: resolved here, against the operator's directory.
      ...(cert !== undefined ? { tlsCert: resolve(cert) } : {}),
      ...(key !== undefined ? { tlsKey: resolve(key) } : {}),
      ...(ctx.flags.insecure === true ? { insecure: true } : {}),
    };
    const client = await ctx.connect({ autoStart: false, server: true });
    const r = await client.request<WebAnswer>('server.web', params);
    client.destroy();
    for (const w of r.warnings) process.stderr.write(`swb web: ${w}\n`);
    ctx.result(r);
    if (r.rotated) ctx.print('Every earlier token and browser login is revoked.');
    ctx.print(`${r.readOnly ? 'View-only page' : 'Page'} (open once; the token becomes a login):`);
    ctx.print(r.loginUrl ?? r.url);
    if (ctx.flags['no-qr'] !== true && r.loginUrl && !ctx.json) ctx.print(renderUnicodeCompact(r.loginUrl, { border: 1 }));
    return 0;
  },
};
