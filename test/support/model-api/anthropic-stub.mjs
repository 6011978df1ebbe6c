#!/usr/bin/env node
// A local stand-in for the Anthropic Messages API, so a real agent CLI (Claude Code) can run offline
// against scripted turns. Plain Node, no deps. Listens on 127.0.0.1 only.
//
//   node anthropic-stub.mjs --script turns.json [--port 0] [--log requests.ndjson]
//   import { startAnthropicStub } from './anthropic-stub.mjs'  → { port, url, close(), requests }
//
// Script (JSON):
//   {
//     "turns": [                                  // tried in order against the last user text
//       { "match": "REGEX",                       // on the newest user message's text
//         "matchReminder": "REGEX",               // or on all its text, <system-reminder> blocks
//                                                 //   included (a Stop hook's feedback comes so)
//         "delayMs": 0,                           // hold the stream open (pings) before answering
//         "streamMs": 0,                          // then stream each text over this long, in 20 deltas
//         "failFirst": 0,                         // answer this many requests for the turn with an
//                                                 //   HTTP 529 overloaded_error first (the CLI retries)
//         "content": [ { "type": "text", "text": "..." },
//                      { "type": "tool_use", "name": "Bash", "input": { "command": "ls" } } ],
//         "afterTool": "text answered once the tool_result comes back",
//         "steps": [                              // or: one answer per tool round of this turn
//           { "capture": "#(\\d+)",                  // regex on the newest tool_result's text;
//             "content": [ ...blocks, "{{1}}" in any string is capture group 1 ] },
//           { "content": [ { "type": "text", "text": "All done." } ] } ] }
//     ],
//     "default": { "content": [ { "type": "text", "text": "OK." } ] }
//   }
// Requests whose newest user message is a tool_result get the matching turn's next "steps" entry (the
// Nth tool round gets steps[N-1]), or else its "afterTool" text.
// Side requests the CLI makes (titles, topic checks, token counts) get a short plain answer.
// Every answer carries a realistic `usage` (uncached input, cache write, cache read, output), derived
// from the request and the answer so that it differs per request; the request log records it (`usage`),
// so a test can compare what an agent's transcript says against what the stand-in handed out.
import { answerStep, runStubCli, sendJson, startStubServer } from './stub-server.mjs';

let counter = 0;
const nextId = (p) => `${p}_stub${Date.now().toString(36)}${(counter++).toString(36)}`;

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => b && b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

/** The newest user message: its text, and whether it carries a tool_result. */
function lastUser(body) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m.role !== 'user') continue;
    const blocks = Array.isArray(m.content) ? m.content : [];
    const toolResult = blocks.find((b) => b && b.type === 'tool_result');
    // Claude Code prepends <system-reminder> blocks; the typed text is the last text block.
    const texts = typeof m.content === 'string' ? [m.content] : blocks.filter((b) => b && b.type === 'text').map((b) => b.text);
    const typed = [...texts].reverse().find((t) => !/^\s*<system-reminder>/.test(t)) ?? '';
    // A message can carry both (an interrupted tool's result plus the next typed line): text wins.
    return { text: typed, toolResult: typed === '' ? (toolResult ?? null) : null };
  }
  return { text: '', toolResult: null };
}

/**
 * The conversation a request carries, one "role: text" line per message with typed text (Claude
 * Code's <system-reminder> blocks left out, each text cut to 200 characters): what a resumed
 * conversation was given of its history.
 */
function historyOf(body) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  const out = [];
  for (const m of msgs) {
    const texts = typeof m.content === 'string' ? [m.content] : (Array.isArray(m.content) ? m.content : []).filter((b) => b && b.type === 'text').map((b) => b.text);
    const typed = texts.filter((t) => typeof t === 'string' && !/^\s*<system-reminder>/.test(t));
    if (typed.length > 0) out.push(`${m.role}: ${typed.join('\n').slice(0, 200)}`);
  }
  return out;
}

/**
 * Every text block of the newest user message, <system-reminder> blocks included, each cut to `max`
 * characters (what a hook or the CLI itself added beside, or instead of, typed text).
 */
function newestUserTexts(body, max = Infinity) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return [m.content.slice(0, max)];
    return (Array.isArray(m.content) ? m.content : []).filter((b) => b && b.type === 'text' && typeof b.text === 'string').map((b) => b.text.slice(0, max));
  }
  return [];
}

/**
 * The MCP tools (mcp__SERVER__TOOL) a request names anywhere: in its tools list, or in text that offers
 * them deferred (Claude Code lists MCP tools by name for its ToolSearch instead of sending schemas).
 */
function mcpToolsOf(body) {
  const names = JSON.stringify(body).match(/mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]+/g) ?? [];
  return [...new Set(names)].sort();
}

/** The text a tool_result block carries (a string, or text blocks). */
function toolResultText(block) {
  if (!block) return '';
  return typeof block.content === 'string' ? block.content : textOf(block.content);
}

/** How many tool rounds the current turn has had: user messages with a tool_result since the typed one. */
function toolRound(body) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  let n = 0;
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m.role !== 'user') continue;
    const blocks = Array.isArray(m.content) ? m.content : [];
    if (!blocks.some((b) => b && b.type === 'tool_result')) break;
    n++;
  }
  return n;
}

/** Text of the user message that started the current tool loop (to find the turn for afterTool). */
function lastTypedUser(body) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m.role !== 'user') continue;
    const blocks = Array.isArray(m.content) ? m.content : [];
    if (blocks.some((b) => b && b.type === 'tool_result')) continue;
    const texts = typeof m.content === 'string' ? [m.content] : blocks.filter((b) => b && b.type === 'text').map((b) => b.text);
    return [...texts].reverse().find((t) => !/^\s*<system-reminder>/.test(t)) ?? '';
  }
  return '';
}

/** Every text of the user message that started the current tool loop, <system-reminder> blocks included. */
function lastStartingUserTexts(body) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    const blocks = Array.isArray(m.content) ? m.content : [];
    if (blocks.some((b) => b && b.type === 'tool_result')) continue;
    return blocks.filter((b) => b && b.type === 'text').map((b) => b.text).join('\n');
  }
  return '';
}

function chooseResponse(script, body) {
  const { text, toolResult } = lastUser(body);
  // A turn with only "matchReminder" matches on that alone (no implicit ".*" for "match").
  const turns = (script.turns ?? []).map((t) => ({
    ...t,
    re: t.match === undefined && t.matchReminder !== undefined ? null : new RegExp(t.match ?? '.*', 's'),
    reminderRe: t.matchReminder !== undefined ? new RegExp(t.matchReminder, 's') : null,
  }));
  const matches = (t, typed, allText) => (t.re !== null && t.re.test(typed)) || (t.reminderRe !== null && t.reminderRe.test(allText));
  if (toolResult) {
    const typed = lastTypedUser(body);
    const started = lastStartingUserTexts(body);
    const turn = turns.find((t) => matches(t, typed, started));
    const step = turn?.steps?.[toolRound(body) - 1];
    if (step) return answerStep(step, toolResultText(toolResult), 'content', (text) => ({ type: 'text', text }));
    return { delayMs: turn?.afterToolDelayMs ?? 0, content: [{ type: 'text', text: turn?.afterTool ?? 'Done.' }] };
  }
  const turn = turns.find((t) => matches(t, text, newestUserTexts(body).join('\n')));
  if (turn) return { delayMs: turn.delayMs ?? 0, streamMs: turn.streamMs ?? 0, failFirst: turn.failFirst ?? 0, key: turn.match ?? turn.matchReminder, content: turn.content ?? [{ type: 'text', text: 'OK.' }] };
  return { delayMs: script.default?.delayMs ?? 0, content: script.default?.content ?? [{ type: 'text', text: 'OK.' }] };
}

/** Is this one of the CLI's side requests (title, topic, quota) rather than the conversation? */
function isSideRequest(body) {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return true;
  return false;
}

/** The answer's content blocks; `withIds` false leaves tool ids out (for sizing the usage, which must not depend on them). */
function blocksFor(content, withIds = true) {
  return content.map((c) =>
    c.type === 'tool_use' ? { type: 'tool_use', id: withIds ? nextId('toolu') : '', name: c.name, input: c.input ?? {} } : { type: 'text', text: c.text ?? '' },
  );
}

/**
 * The usage this stand-in reports for a request and its answer: the prompt's size (about four bytes a
 * token) split as the API splits a cached conversation (most of it read from the cache, the newest part
 * written to it, a few uncached tokens), and output from the answer's size. Deterministic, so the request
 * log can say what was handed out before the answer is sent.
 */
export function usageFor(body, blocks) {
  const prompt = Math.ceil(JSON.stringify([body.system ?? '', body.messages ?? [], body.tools ?? []]).length / 4);
  const cacheRead = Array.isArray(body.messages) && body.messages.length > 1 ? Math.floor(prompt * 0.7) : 0;
  const cacheWrite = Math.floor((prompt - cacheRead) * 0.8);
  const output = 7 + Math.ceil(JSON.stringify(blocks).length / 4);
  return { input_tokens: prompt - cacheRead - cacheWrite, cache_creation_input_tokens: cacheWrite, cache_read_input_tokens: cacheRead, output_tokens: output };
}

function sse(res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

const STREAM_DELTAS = 20;

async function stream(res, model, blocks, delayMs, closed, usage, streamMs = 0, begun = () => {}) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const message = {
    id: nextId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    // As the API streams it: the input side and a first output token at the start, the output total at the end.
    usage: { ...usage, output_tokens: 1 },
  };
  sse(res, 'message_start', { type: 'message_start', message });
  const until = Date.now() + delayMs;
  while (Date.now() < until && !closed()) {
    sse(res, 'ping', { type: 'ping' });
    await new Promise((r) => setTimeout(r, Math.min(250, Math.max(1, until - Date.now()))));
  }
  if (closed()) return;
  begun();
  for (const [index, b] of blocks.entries()) {
    if (b.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      // A long streamed answer: the text in STREAM_DELTAS pieces spread over streamMs.
      const pieces = streamMs > 0 ? STREAM_DELTAS : 1;
      const size = Math.ceil(b.text.length / pieces);
      for (let i = 0; i < pieces && !closed(); i++) {
        const text = b.text.slice(i * size, (i + 1) * size);
        if (text) sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
        if (streamMs > 0) await new Promise((r) => setTimeout(r, streamMs / pieces));
      }
      if (closed()) return;
    } else {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  }
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function reply(res, model, blocks, usage) {
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: nextId('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content: blocks,
      stop_reason: stop,
      stop_sequence: null,
      usage,
    }),
  );
}

export async function startAnthropicStub({ script = {}, port = 0, logFile } = {}) {
  const answerFor = (body) => (isSideRequest(body) ? { delayMs: 0, content: [{ type: 'text', text: 'Stub session' }] } : chooseResponse(script, body));
  // When each streamed answer to the CLI's main requests finished (ms epoch): a turn's true end for
  // the state benchmarks and timing tests (issue #37).
  const answered = [];
  // The same for the CLI's side requests (titles, a compaction's summary).
  const sideAnswered = [];
  // When each streamed answer to a main request sent its first content: an Esc after it is mid-answer.
  const answering = [];
  // How many requests each failFirst turn has failed so far.
  const failed = new Map();
  const server = await startStubServer({
    port,
    logFile,
    describe(req, url, body) {
      const newest = lastUser(body);
      return {
        model: body.model,
        stream: body.stream === true,
        lastUser: newest.text.slice(0, 200),
        history: historyOf(body),
        tools: Array.isArray(body.tools) ? body.tools.map((t) => t?.name).filter((n) => typeof n === 'string') : [],
        userTexts: newestUserTexts(body, 2000),
        mcpTools: mcpToolsOf(body),
        ...(newest.toolResult ? { toolResult: toolResultText(newest.toolResult).slice(0, 2000) } : {}),
        ...(req.method === 'POST' && url.pathname === '/v1/messages' ? { usage: usageFor(body, blocksFor(answerFor(body).content, false)) } : {}),
      };
    },
    handle(req, res, url, body, closed) {
      if (req.method === 'POST' && url.pathname === '/v1/messages/count_tokens') return sendJson(res, 200, { input_tokens: 25 });
      if (req.method !== 'POST' || url.pathname !== '/v1/messages') {
        return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `stub has no ${url.pathname}` } });
      }
      const model = body.model ?? 'claude-stub';
      const chosen = answerFor(body);
      const usage = usageFor(body, blocksFor(chosen.content, false));
      const blocks = blocksFor(chosen.content);
      if (chosen.failFirst > 0 && (failed.get(chosen.key) ?? 0) < chosen.failFirst) {
        failed.set(chosen.key, (failed.get(chosen.key) ?? 0) + 1);
        answered.push({ at: Date.now(), lastUser: lastUser(body).text.slice(0, 200), toolUse: false, failed: true });
        return sendJson(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded (stub)' } });
      }
      if (body.stream) {
        const side = isSideRequest(body);
        const begun = () => side || answering.push({ at: Date.now(), lastUser: lastUser(body).text.slice(0, 200) });
        return stream(res, model, blocks, chosen.delayMs, closed, usage, chosen.streamMs ?? 0, begun).then((r) => {
          (side ? sideAnswered : answered).push({ at: Date.now(), lastUser: lastUser(body).text.slice(0, 200), toolUse: blocks.some((b) => b.type === 'tool_use') });
          return r;
        });
      }
      return reply(res, model, blocks, usage);
    },
  });
  server.answered = answered;
  server.sideAnswered = sideAnswered;
  server.answering = answering;
  return server;
}

await runStubCli(import.meta.url, 'anthropic-stub', startAnthropicStub);
