#!/usr/bin/env node
// A local stand-in for the OpenAI Responses API (`POST /v1/responses`, streaming SSE), so Codex CLI can
// run offline with a custom model provider (see docs/AGENTS-REAL.md). Plain Node, no deps, 127.0.0.1.
//
//   node openai-responses-stub.mjs --script turns.json [--port 0] [--log requests.ndjson]
//   import { startResponsesStub } from './openai-responses-stub.mjs' → { port, url, close(), requests }
//
// Script: { "turns": [ { "match": "REGEX", "delayMs": 0,
//                        "output": [ { "type": "text", "text": "..." },
//                                    { "type": "function_call", "name": "shell", "arguments": { ... } },
//                                    { "type": "function_call", "namespace": "mcp__swb", "name": "inbox", ... } ],
//                        "steps": [                          // or: one answer per tool round of this turn
//                          { "capture": "#(\\d+)",              // regex on the newest function_call_output;
//                            "output": [ ..., "{{1}}" in any string is capture group 1,
//                                        a string that is exactly "{{#1}}" is it as a number ] } ],
//                        "afterTool": "text once the function_call_output comes back" } ],
//           "default": { "output": [ { "type": "text", "text": "OK." } ] } }
// Requests whose newest input item is a function_call_output get the matching turn's next "steps" entry
// (the Nth tool round gets steps[N-1]), or else its "afterTool" text.
// Every response carries a realistic `usage` (input with its cached part, output with its reasoning part)
// derived from the request and the answer, and the rate-limit headers Codex reads for a plan's windows
// (x-codex-primary-* for the five-hour window, x-codex-secondary-* for the weekly one); the request log
// records both (`usage`, `rateLimits`), so a test can compare what Codex wrote against what it was handed.
import { answerStep, runStubCli, sendJson, startStubServer } from './stub-server.mjs';

let counter = 0;
const nextId = (p) => `${p}_stub${Date.now().toString(36)}${(counter++).toString(36)}`;

function itemText(item) {
  if (!item || typeof item !== 'object') return '';
  if (typeof item.content === 'string') return item.content;
  if (!Array.isArray(item.content)) return '';
  return item.content
    .filter((c) => c && (c.type === 'input_text' || c.type === 'text'))
    .map((c) => c.text)
    .join('\n');
}

function userTexts(body) {
  const input = Array.isArray(body.input) ? body.input : [];
  return input.filter((i) => i && i.role === 'user').map(itemText);
}

/** The newest typed user text (skipping the CLI's own context messages, which start with '<'). */
function lastTyped(body) {
  const texts = userTexts(body).filter((t) => !/^\s*</.test(t));
  return texts.at(-1) ?? '';
}

/** The text of a function_call_output item (a string, or content parts). */
function outputText(item) {
  if (!item || item.type !== 'function_call_output') return '';
  if (typeof item.output === 'string') return item.output;
  if (Array.isArray(item.output)) return item.output.map((p) => (p && typeof p.text === 'string' ? p.text : '')).join('\n');
  return JSON.stringify(item.output ?? '');
}

/** Tool rounds since the newest typed user message. */
function toolRound(body) {
  const input = Array.isArray(body.input) ? body.input : [];
  let n = 0;
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (item && item.role === 'user' && !/^\s*</.test(itemText(item))) break;
    if (item && item.type === 'function_call_output') n++;
  }
  return n;
}


function choose(script, body) {
  const input = Array.isArray(body.input) ? body.input : [];
  const last = input.at(-1);
  const turns = (script.turns ?? []).map((t) => ({ ...t, re: new RegExp(t.match ?? '.*', 's') }));
  const typed = lastTyped(body);
  const turn = turns.find((t) => t.re.test(typed));
  if (last && last.type === 'function_call_output') {
    const step = turn?.steps?.[toolRound(body) - 1];
    if (step) return answerStep(step, outputText(last), 'output', (text) => ({ type: 'text', text }));
    return { delayMs: turn?.afterToolDelayMs ?? 0, output: [{ type: 'text', text: turn?.afterTool ?? 'Done.' }] };
  }
  if (turn) return { delayMs: turn.delayMs ?? 0, output: turn.output ?? [{ type: 'text', text: 'OK.' }] };
  return { delayMs: script.default?.delayMs ?? 0, output: script.default?.output ?? [{ type: 'text', text: 'OK.' }] };
}

function items(output) {
  return output.map((o) =>
    o.type === 'function_call'
      ? { type: 'function_call', id: nextId('fc'), call_id: nextId('call'), name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}), arguments: JSON.stringify(o.arguments ?? {}), status: 'completed' }
      : { type: 'message', id: nextId('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: o.text ?? '', annotations: [] }] },
  );
}

/** The functions inside each `type: "namespace"` tool (how Codex offers MCP servers' tools: `mcp__<server>`). */
function namespaceTools(body) {
  const out = {};
  for (const t of Array.isArray(body.tools) ? body.tools : []) {
    if (t && t.type === 'namespace') out[t.name] = Array.isArray(t.tools) ? t.tools.map((f) => f.name) : [];
  }
  return out;
}

/** Usage for a request and its answer: about four bytes a token, most of a long prompt cached. */
export function usageFor(body, out) {
  const input = Math.ceil(JSON.stringify([body.instructions ?? '', body.input ?? [], body.tools ?? []]).length / 4);
  const cached = Array.isArray(body.input) && body.input.length > 2 ? Math.floor(input * 0.75) : 0;
  const reasoning = 3 + (input % 5);
  const output = reasoning + 5 + Math.ceil(JSON.stringify(out.map(({ id: _i, call_id: _c, ...o }) => o)).length / 4);
  return { input_tokens: input, input_tokens_details: { cached_tokens: cached }, output_tokens: output, output_tokens_details: { reasoning_tokens: reasoning }, total_tokens: input + output };
}

/** The plan windows the stand-in reports on its `n`th response (0-based): each request uses up a little more. */
export function rateLimitsFor(n, nowSeconds) {
  return {
    primary: { used_percent: 4 + 3 * n, window_minutes: 300, reset_at: nowSeconds + 4 * 3600 },
    secondary: { used_percent: 1 + n, window_minutes: 10080, reset_at: nowSeconds + 5 * 86400 },
  };
}

function rateLimitHeaders(limits) {
  const h = {};
  for (const which of ['primary', 'secondary']) {
    const w = limits[which];
    h[`x-codex-${which}-used-percent`] = String(w.used_percent);
    h[`x-codex-${which}-window-minutes`] = String(w.window_minutes);
    h[`x-codex-${which}-reset-at`] = String(w.reset_at);
  }
  return h;
}

function sse(res, data) {
  res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
}

async function stream(res, body, out, delayMs, closed, handedOut) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...rateLimitHeaders(handedOut.rateLimits) });
  const response = { id: nextId('resp'), object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'in_progress', model: body.model ?? 'stub', output: [] };
  sse(res, { type: 'response.created', response });
  sse(res, { type: 'response.in_progress', response });
  const until = Date.now() + delayMs;
  while (Date.now() < until && !closed()) await new Promise((r) => setTimeout(r, Math.min(200, Math.max(1, until - Date.now()))));
  if (closed()) return;
  out.forEach((item, output_index) => {
    if (item.type === 'message') {
      sse(res, { type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', content: [] } });
      sse(res, { type: 'response.content_part.added', item_id: item.id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      sse(res, { type: 'response.output_text.delta', item_id: item.id, output_index, content_index: 0, delta: item.content[0].text });
      sse(res, { type: 'response.output_text.done', item_id: item.id, output_index, content_index: 0, text: item.content[0].text });
      sse(res, { type: 'response.content_part.done', item_id: item.id, output_index, content_index: 0, part: item.content[0] });
    } else {
      sse(res, { type: 'response.output_item.added', output_index, item: { ...item, arguments: '', status: 'in_progress' } });
      sse(res, { type: 'response.function_call_arguments.delta', item_id: item.id, output_index, delta: item.arguments });
      sse(res, { type: 'response.function_call_arguments.done', item_id: item.id, output_index, arguments: item.arguments });
    }
    sse(res, { type: 'response.output_item.done', output_index, item });
  });
  sse(res, { type: 'response.completed', response: { ...response, status: 'completed', output: out, usage: handedOut.usage } });
  res.end();
}

export async function startResponsesStub({ script = {}, port = 0, logFile } = {}) {
  // What each model request was handed (usage, plan windows), decided when it is logged and sent as logged.
  const handedOut = new WeakMap();
  let responses = 0;
  // When each streamed answer finished (ms epoch): a turn's true end for the state benchmark (issue #37).
  const answered = [];
  const isModelRequest = (req, url) => req.method === 'POST' && url.pathname.endsWith('/responses');
  const server = await startStubServer({
    port,
    logFile,
    describe: (req, url, body) => {
      if (!isModelRequest(req, url)) return describe(body);
      const h = { usage: usageFor(body, items(choose(script, body).output)), rateLimits: rateLimitsFor(responses++, Math.floor(Date.now() / 1000)) };
      handedOut.set(body, h);
      return { ...describe(body), ...h };
    },
    handle(req, res, url, body, closed) {
      if (req.method === 'GET' && url.pathname.endsWith('/models')) return sendJson(res, 200, { object: 'list', data: [], models: [] });
      if (!isModelRequest(req, url)) {
        return sendJson(res, 404, { error: { message: `stub has no ${url.pathname}`, type: 'not_found' } });
      }
      const chosen = choose(script, body);
      const out = items(chosen.output);
      return stream(res, body, out, chosen.delayMs, closed, handedOut.get(body)).then(() => {
        if (!closed() || res.writableEnded) answered.push({ at: Date.now(), lastUser: lastTyped(body).slice(0, 200), toolUse: out.some((i) => i.type === 'function_call') });
      });
    },
  });
  server.answered = answered;
  return server;
}

function describe(body) {
  return {
    model: body.model,
    stream: body.stream === true,
    lastUser: lastTyped(body).slice(0, 200),
    ...(Array.isArray(body.input) && body.input.at(-1)?.type === 'function_call_output' ? { toolResult: outputText(body.input.at(-1)).slice(0, 4000) } : {}),
    tools: Array.isArray(body.tools) ? body.tools.map((t) => t.name ?? t.type) : [],
    namespaceTools: namespaceTools(body),
  };
}

await runStubCli(import.meta.url, 'openai-responses-stub', startResponsesStub);
