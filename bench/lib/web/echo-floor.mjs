// The floor under the page's echo (bench/web.mjs): what any browser terminal pays on this stack.
// A bare `ws` server relays a page's keystrokes to a node-pty `cat` (raw, no echo: the same row
// program as swb's row `e`) and its output back, as raw text frames — no JSON, no taps, no frame
// clock, no size rule — into a page with the same xterm.js Terminal setup as swb's row views (the
// same options and addons, DOM renderer; typing on, as swb's attached row: stdin on, a steady cursor). The bench measures
// keydown → parsed and keydown → painted in it with the same probe as in swb's page, so the
// ratio page/floor says what swb adds over the browser, the socket and xterm.js themselves.
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { WebSocketServer } from 'ws';
import pty from 'node-pty';

const pageSource = `
import '@xterm/xterm/css/xterm.css';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
const term = new Terminal({
  cols: 80, rows: 24, scrollback: 5000, allowProposedApi: true, fontSize: 12,
  fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
  cursorBlink: false, disableStdin: true,
  linkHandler: { activate: () => undefined, allowNonHttpProtocols: false },
  theme: { background: '#111418', foreground: '#d8dee9' },
});
term.loadAddon(new FitAddon());
term.loadAddon(new SearchAddon());
const box = document.getElementById('term');
term.open(box);
const ws = new WebSocket('ws://' + location.host + '/ws');
ws.onmessage = (e) => term.write(e.data);
term.onData((d) => ws.send(d));
ws.onopen = () => { term.options.disableStdin = false; term.focus(); window.floorReady = true; };
window.floorTerm = term;
`;

const html = `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/app.css"></head>
<body style="margin:0;background:#0b0d10"><div id="term" style="width:1200px;height:700px"></div><script src="/app.js"></script></body></html>`;

/** Starts the floor: returns its URL and a stop(). */
export async function startEchoFloor() {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const bundle = await build({
    stdin: { contents: pageSource, resolveDir: root, loader: 'js' },
    bundle: true, write: false, minify: true, outdir: 'out', platform: 'browser', logLevel: 'silent',
  });
  const file = (ext) => bundle.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  const js = file('.js');
  const css = file('.css');
  const server = createServer((req, res) => {
    const [type, body] = req.url === '/app.js' ? ['text/javascript', js] : req.url === '/app.css' ? ['text/css', css] : ['text/html', html];
    res.writeHead(200, { 'content-type': `${type}; charset=utf-8` });
    res.end(body);
  });
  const wss = new WebSocketServer({ server, path: '/ws', perMessageDeflate: false });
  const ptys = new Set();
  wss.on('connection', (ws) => {
    const p = pty.spawn('/bin/sh', ['-c', 'stty raw -echo; exec cat'], { name: 'xterm-256color', cols: 80, rows: 24, env: process.env });
    ptys.add(p);
    p.onData((data) => ws.send(data));
    ws.on('message', (data) => p.write(data.toString()));
    ws.on('close', () => { ptys.delete(p); p.kill(); });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  return {
    url,
    stop: async () => {
      for (const p of ptys) p.kill();
      wss.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
