// What the model-API stand-ins (anthropic-, openai-responses-, gemini-stub.mjs) share: a loopback
// HTTP server that parses each JSON body, records and optionally logs one entry per request, and
// hands the request to the stub's own handler; plus the command-line entry each stub offers.
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

/**
 * @param {{ port?: number, logFile?: string,
 *           describe: (req: import('node:http').IncomingMessage, url: URL, body: any) => object,
 *           handle: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, url: URL, body: any, closed: () => boolean) => unknown }} o
 */
export function startStubServer({ port = 0, logFile, describe, handle }) {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      let body = {};
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch {
        body = {};
      }
      const entry = { at: Date.now(), method: req.method, path: url.pathname, ...describe(req, url, body) };
      requests.push(entry);
      if (logFile) appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
      let closedFlag = false;
      res.on('close', () => (closedFlag = true));
      void handle(req, res, url, body, () => closedFlag);
    });
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const addr = server.address();
      resolve({
        port: addr.port,
        url: `http://127.0.0.1:${addr.port}`,
        requests,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}

export function sendJson(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** When `moduleUrl` is the program being run: `--script FILE --port N --log FILE`, until SIGTERM/SIGINT. */
export async function runStubCli(moduleUrl, label, start) {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const scriptFile = arg('--script');
  const script = scriptFile ? JSON.parse(readFileSync(scriptFile, 'utf8')) : {};
  const stub = await start({ script, port: Number(arg('--port') ?? 0), logFile: arg('--log') });
  process.stdout.write(`${label} listening on ${stub.url}\n`);
  process.on('SIGTERM', () => void stub.close().then(() => process.exit(0)));
  process.on('SIGINT', () => void stub.close().then(() => process.exit(0)));
}

/**
 * Replaces "{{N}}" in every string of a JSON value with capture group N; a string that is exactly
 * "{{#N}}" becomes group N as a number (for tool arguments whose schema wants an integer).
 */
function fillCaptures(value, groups) {
  const whole = typeof value === 'string' ? /^\{\{#(\d+)\}\}$/.exec(value) : null;
  if (whole) return Number(groups[Number(whole[1])]);
  if (typeof value === 'string') return value.replace(/\{\{(\d+)\}\}/g, (_, i) => groups[Number(i)] ?? '');
  if (Array.isArray(value)) return value.map((v) => fillCaptures(v, groups));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillCaptures(v, groups)]));
  return value;
}

/**
 * A scripted tool round's answer, shared by the stubs (each names its answer list differently: `field`
 * is "content", "output" or "parts", and `text(s)` makes one text item in its API's shape): the step's
 * list with "{{N}}" filled from `step.capture` matched against the tool's result, or a text item saying
 * that the capture did not match.
 */
export function answerStep(step, result, field, text) {
  let groups = [];
  if (step.capture) {
    const m = new RegExp(step.capture, 's').exec(result);
    if (!m) return { delayMs: 0, [field]: [text(`stub: /${step.capture}/ did not match the tool result: ${result.slice(0, 300)}`)] };
    groups = [...m];
  }
  return { delayMs: step.delayMs ?? 0, [field]: fillCaptures(step[field] ?? [text('OK.')], groups) };
}
