// Builds the browser page into dist/web/, the files the web listener serves (and nothing else):
// index.html (no inline script or style: the page's CSP forbids both), login.html and login.js (the
// public login page: the token from the URL's fragment for a cookie and the page key), app.js and app.css (the
// page and xterm.js with its stylesheet, bundled by esbuild for the browser), sw.js (the offline
// shell), manifest.webmanifest and two PNG icons drawn here (an installable page needs them; made
// from a few lines of code rather than committed as binaries). Run by `npm run build`.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const page = `${root}src/web/page/`;
const out = `${root}dist/web/`;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const common = { bundle: true, platform: 'browser', target: ['chrome110', 'firefox115', 'safari16'], minify: true, legalComments: 'none', logLevel: 'warning' };
await Promise.all([
  build({ ...common, entryPoints: { app: `${page}main.ts` }, outdir: out, format: 'esm', sourcemap: false }),
  build({ ...common, entryPoints: { sw: `${page}service-worker.ts` }, outdir: out, format: 'iife' }),
  build({ ...common, entryPoints: { login: `${page}login.ts` }, outdir: out, format: 'esm' }),
]);
copyFileSync(`${page}index.html`, `${out}index.html`);
copyFileSync(`${page}login.html`, `${out}login.html`);
writeFileSync(
  `${out}manifest.webmanifest`,
  JSON.stringify(
    {
      name: 'Switchboard',
      short_name: 'swb',
      description: 'Every row live, mail and the composer: the switchboard in a browser',
      start_url: '/',
      scope: '/',
      display: 'standalone',
      background_color: '#0b0d10',
      theme_color: '#111418',
      icons: [
        { src: '/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
        { src: '/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any maskable' },
      ],
    },
    null,
    2,
  ),
);
for (const size of [192, 512]) writeFileSync(`${out}icon-${size}.png`, icon(size));

/** The icon: a dark tile with three rows (the board's tiles), the middle one lit — a switchboard. */
function icon(size) {
  const px = Buffer.alloc(size * size * 4);
  const bars = [
    { y: 0.24, color: [0x5f, 0xa8, 0xff] },
    { y: 0.44, color: [0x98, 0xc3, 0x79] },
    { y: 0.64, color: [0xe5, 0xc0, 0x7b] },
  ];
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const u = x / size;
      const v = y / size;
      let c = [0x11, 0x14, 0x18];
      for (const bar of bars) if (v >= bar.y && v < bar.y + 0.12 && u >= 0.18 && u < 0.82) c = u < 0.3 ? bar.color : [0x2a, 0x30, 0x38];
      const i = (y * size + x) * 4;
      px[i] = c[0];
      px[i + 1] = c[1];
      px[i + 2] = c[2];
      px[i + 3] = 255;
    }
  }
  return png(size, size, px);
}

function png(width, height, rgba) {
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) rgba.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function crc32(bytes) {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
