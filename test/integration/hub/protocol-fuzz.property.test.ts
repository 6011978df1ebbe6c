// Property-based fuzzing of a real hub's socket protocol (docs/PROTOCOL.md) with fast-check and a
// fixed seed: random JSON-RPC-ish frames (real and made-up methods, JavaScript's built-in property
// names as methods and as params keys, wrong types, huge numbers, nested arrays, non-objects, bad
// ids, garbage, oversized lines), before and after hello, in both dialects, written in random
// chunks. Properties: every frame gets exactly one answer; every error carries a code from the
// protocol's list and never INTERNAL; params that break their method's documented shape (unknown
// fields, prototype names included) are BAD_REQUEST; unknown methods (prototype names included)
// are UNKNOWN_METHOD; and the hub still serves a plain hello + mail.send afterwards.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/protocol/error-codes.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { startTestHub, type TestHub } from '../../helpers/hub-harness.js';
import { RawClient } from '../../helpers/raw-client.js';
import { waitUntil } from '../../helpers/wait-until.js';

/** Change the seed to explore; a failure report prints the seed and path that reproduce it. */
const SEED = 0x5eed_f022;
/** Small, so oversized frames are cheap to make; the default is 64 KiB. */
const MAX_FRAME = 8192;
/** The whole file stays near 10 s even when a property fails and fast-check shrinks. */
const TIME_LIMIT_MS = 4000;

const PROTO_NAMES = [
  'constructor',
  'toString',
  '__proto__',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
] as const;

type FieldType = 'int' | 'bool' | 'str' | 'arr';
interface MethodShape {
  fields: Record<string, FieldType>;
  required: string[];
  operatorOnly?: boolean;
}

/** Every method's params as docs/PROTOCOL.md lists them (JSON types only; ranges are not judged here). */
const SHAPES: Record<string, MethodShape> = {
  hello: { fields: { version: 'int', session: 'str', token: 'str', subscribe: 'bool', client: 'str' }, required: ['version'] },
  'mail.send': { fields: { to: 'arr', text: 'str', kind: 'str', replyTo: 'int', messageId: 'str' }, required: ['to', 'text'] },
  'mail.list': { fields: { after: 'int', unreadOnly: 'bool', limit: 'int' }, required: [] },
  'mail.read': { fields: { ids: 'arr' }, required: ['ids'] },
  'mail.wait': { fields: { timeoutMs: 'int', after: 'int', peek: 'bool' }, required: ['timeoutMs'] },
  'mail.subscribe': { fields: { scope: 'str' }, required: [] },
  'mail.history': { fields: { before: 'int', limit: 'int', peer: 'str' }, required: [], operatorOnly: true },
  'mail.woken': { fields: { recipient: 'str', ids: 'arr' }, required: ['recipient', 'ids'], operatorOnly: true },
  'receipt.get': { fields: { id: 'int' }, required: ['id'] },
  'peers.list': { fields: {}, required: [] },
  'rows.explain': { fields: { row: 'str', verbose: 'bool' }, required: ['row'] },
  'session.registerRow': { fields: { handle: 'str' }, required: ['handle'], operatorOnly: true },
  'hub.shutdown': { fields: {}, required: [], operatorOnly: true },
};
const METHOD_NAMES = Object.keys(SHAPES);
const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const isKnownMethod = (m: string) => own(SHAPES, m);

/** The numeric JSON-RPC code PROTOCOL.md gives each Switchboard code. */
function rpcNumber(code: string): number {
  const fixed: Record<string, number> = { BAD_FRAME: -32700, FRAME_TOO_LARGE: -32700, BAD_REQUEST: -32602, UNKNOWN_METHOD: -32601, INTERNAL: -32603 };
  return own(fixed, code) ? fixed[code]! : -32000 - (ERROR_CODES as readonly string[]).indexOf(code);
}

function typeOk(t: FieldType, v: unknown): boolean {
  if (t === 'int') return typeof v === 'number' && Number.isInteger(v);
  if (t === 'bool') return typeof v === 'boolean';
  if (t === 'str') return typeof v === 'string';
  return Array.isArray(v);
}

/** Junk keys carry this mark: no field of any method will ever be named so. */
const JUNK_KEY = '~';
/** Keys that are no field of any method, now or later: built-in property names and marked junk. */
const certainlyUnknown = (k: string) => (PROTO_NAMES as readonly string[]).includes(k) || k.startsWith(JUNK_KEY);

/**
 * Why these params certainly break the method's documented shape, or null when they may be fine.
 * A documented field of another method is not judged (a method may gain it, as peers.list gained limit).
 */
function shapeViolation(method: string, params: unknown): string | null {
  const shape = SHAPES[method]!;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return 'params not an object';
  for (const [k, v] of Object.entries(params)) {
    if (own(shape.fields, k)) {
      if (!typeOk(shape.fields[k]!, v)) return `${k} is not of type ${shape.fields[k]}`;
    } else if (certainlyUnknown(k)) return `unknown field ${JSON.stringify(k)}`;
  }
  for (const k of shape.required) if (!own(params, k)) return `missing ${k}`;
  return null;
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

const handleArb = fc.oneof(
  fc.constantFrom(...PROTO_NAMES, 'alice', 'bob', 'all', '*', 'operator', '-bad', '', 'x'.repeat(65)),
  fc.stringMatching(/^[A-Za-z0-9._][A-Za-z0-9._-]{0,12}$/),
);
const hugeNumber = fc.constantFrom(1e300, -1e300, Number.MAX_VALUE, 2 ** 53 + 2, 2 ** 64, 1e21, -(2 ** 63), 5e-324, 0.5, -1);
const keyArb = fc.oneof(
  fc.constantFrom(...PROTO_NAMES),
  fc.constantFrom(...new Set(Object.values(SHAPES).flatMap((s) => Object.keys(s.fields)))),
  fc.string({ maxLength: 12 }).map((k) => `${JUNK_KEY}${k}`),
);

/** Any JSON value, leaning on what breaks handlers: prototype names, huge numbers, nested arrays. */
const { jsonish } = fc.letrec<{ jsonish: unknown }>((tie) => ({
  jsonish: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: -5, max: 1100 }),
    hugeNumber,
    fc.boolean(),
    fc.constant(null),
    fc.string({ maxLength: 30 }),
    fc.constantFrom(...PROTO_NAMES),
    handleArb,
    fc.array(tie('jsonish'), { maxLength: 4 }),
    fc.uniqueArray(fc.tuple(keyArb, tie('jsonish')), { maxLength: 4, selector: ([k]) => k }).map((e) => Object.fromEntries(e)),
  ),
}));

/** Params that a method would accept, so fuzzing reaches the handlers (short waits only). */
function plausibleParams(method: string): fc.Arbitrary<Record<string, unknown>> {
  const id = fc.oneof(fc.integer({ min: 1, max: 50 }), hugeNumber);
  const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
  const build = (r: Record<string, fc.Arbitrary<unknown>>) =>
    fc.record(r).map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
  switch (method) {
    case 'hello':
      return build({ version: fc.constantFrom(1, 1, 2, 0), session: opt(handleArb), token: opt(fc.string({ maxLength: 40 })), subscribe: opt(fc.boolean()), client: opt(fc.string({ maxLength: 40 })) });
    case 'mail.send':
      return build({
        to: fc.array(handleArb, { minLength: 0, maxLength: 3 }),
        text: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(...PROTO_NAMES)),
        kind: opt(fc.constantFrom('msg', 'task', 'response', 'data', 'constructor')),
        replyTo: opt(id),
        messageId: opt(fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.stringMatching(/^[A-Za-z0-9._:-]{1,20}$/), fc.string({ maxLength: 10 }))),
      });
    case 'mail.list':
      return build({ after: opt(fc.oneof(fc.nat(100), hugeNumber)), unreadOnly: opt(fc.boolean()), limit: opt(fc.oneof(fc.integer({ min: 0, max: 1001 }), hugeNumber)) });
    case 'mail.read':
      return build({ ids: fc.array(id, { maxLength: 3 }) });
    case 'mail.wait':
      return build({ timeoutMs: fc.integer({ min: 0, max: 30 }), after: opt(fc.oneof(fc.nat(100), hugeNumber)), peek: opt(fc.boolean()) });
    case 'mail.subscribe':
      return build({ scope: opt(fc.constantFrom('mine', 'all', 'none', '__proto__')) });
    case 'mail.history':
      return build({ before: opt(id), limit: opt(fc.integer({ min: 0, max: 600 })), peer: opt(handleArb) });
    case 'mail.woken':
      return build({ recipient: handleArb, ids: fc.array(id, { maxLength: 3 }) });
    case 'receipt.get':
      return build({ id });
    case 'rows.explain':
      return build({ row: handleArb, verbose: opt(fc.boolean()) });
    case 'session.registerRow':
      return build({ handle: handleArb });
    default:
      return fc.constant({});
  }
}

/** Plausible params, then maybe broken: a field of the wrong type, an unknown (often prototype) key, a field dropped. */
function paramsFor(method: string): fc.Arbitrary<unknown> {
  const base = isKnownMethod(method) ? plausibleParams(method) : fc.constant({} as Record<string, unknown>);
  const mutated = fc.tuple(base, fc.nat(), fc.constantFrom('extra', 'wrong', 'drop', 'none', 'none'), keyArb, jsonish).map(([p, pick, how, key, value]) => {
    const entries = Object.entries(p);
    if (how === 'extra') entries.push([key, value]);
    else if (how === 'wrong' && entries.length > 0) entries[pick % entries.length]![1] = value;
    else if (how === 'drop' && entries.length > 0) entries.splice(pick % entries.length, 1);
    // A mail.wait that really waits would slow every run down: keep its waits short.
    for (const e of entries) if (method === 'mail.wait' && e[0] === 'timeoutMs' && Number.isInteger(e[1]) && (e[1] as number) > 30 && (e[1] as number) <= 30_000) e[1] = 30;
    // Object.fromEntries makes own properties, "__proto__" included, and JSON.stringify writes them.
    return Object.fromEntries(entries);
  });
  return fc.oneof(
    { weight: 8, arbitrary: mutated },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.array(jsonish, { maxLength: 3 }), fc.string({ maxLength: 5 }), fc.integer(), fc.boolean(), hugeNumber) },
  );
}

const methodArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...METHOD_NAMES) },
  { weight: 3, arbitrary: fc.constantFrom(...PROTO_NAMES) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('', 'Mail.Send', 'mail.send ', 'mail', 'mail.__proto__', 'x'.repeat(65))) },
);

/** One JSON-RPC-ish frame: what to write, and what the answer must be. */
type RpcFrame =
  | { kind: 'request'; method: string; params: unknown; idStyle: number }
  | { kind: 'hello'; session: string; subscribe: boolean }
  | { kind: 'noJsonrpc'; method: string; idStyle: number }
  | { kind: 'badId'; method: string; idText: string }
  | { kind: 'garbage'; text: string }
  | { kind: 'envelope'; envelope: Record<string, unknown> }
  | { kind: 'oversized'; size: number };

const rpcRequest = methodArb.chain((method) =>
  fc.record({ kind: fc.constant('request' as const), method: fc.constant(method), params: paramsFor(method), idStyle: fc.nat(5) }),
);
const helloFrame = fc.record({ kind: fc.constant('hello' as const), session: handleArb, subscribe: fc.boolean() });
const garbageArb = fc.oneof(
  fc.constantFrom('nope', '[1,2]', '[]', '"str"', '42', 'null', 'true', '{', '{"jsonrpc":"2.0",', '{}', '\u00e9\u00e8'),
  fc.json({ maxDepth: 2 }).filter((t) => !t.startsWith('{')),
  fc.string({ maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, ' ')),
);
const envelopeArb: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      id: fc.oneof(fc.constant(undefined), fc.nat(9999), fc.constantFrom(...PROTO_NAMES), jsonish),
      type: fc.oneof(fc.constantFrom('register', 'chat', 'register', 'chat', 'welcome', 'ack', 'error', ''), fc.constantFrom(...PROTO_NAMES), fc.string({ maxLength: 8 })),
      from_session: fc.oneof(handleArb, jsonish),
      to_session: fc.oneof(handleArb, fc.constant('*'), jsonish),
      channel: fc.oneof(fc.constantFrom('msg', 'task', 'response', 'data'), jsonish),
      reply_to: fc.oneof(fc.constant(null), fc.nat(50), hugeNumber, jsonish),
      payload: fc.oneof(fc.string({ maxLength: 30 }), fc.record({ text: fc.string({ maxLength: 30 }) }), fc.record({ token: fc.string({ maxLength: 10 }) }), jsonish),
    },
    { requiredKeys: ['type'] },
  )
  .map((e) => Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined)));

const rpcFrame: fc.Arbitrary<RpcFrame> = fc.oneof(
  { weight: 10, arbitrary: rpcRequest },
  { weight: 2, arbitrary: helloFrame },
  { weight: 1, arbitrary: methodArb.chain((method) => fc.record({ kind: fc.constant('noJsonrpc' as const), method: fc.constant(method), idStyle: fc.nat(5) })) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('badId' as const),
      method: methodArb,
      idText: fc.constantFrom('null', 'true', '{}', '[]', '[1]', '1e400', '-1e400', JSON.stringify('i'.repeat(129)), '{"constructor":1}'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('garbage' as const), text: garbageArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('envelope' as const), envelope: envelopeArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('oversized' as const), size: fc.integer({ min: MAX_FRAME + 2, max: MAX_FRAME * 2 }) }) },
);

// ---------------------------------------------------------------------------------------------
// Writing frames and judging answers

let idCounter = 0;
/** A request id unique in this file, in one of several JSON shapes the protocol allows. */
function freshId(style: number): string | number {
  const n = ++idCounter;
  switch (style % 6) {
    case 0:
      return n;
    case 1:
      return `r${n}`;
    case 2:
      return n + 0.5;
    case 3:
      return -n;
    case 4:
      return 2 ** 60 + n * 1024; // exact as a double
    default:
      return `${PROTO_NAMES[n % PROTO_NAMES.length]}-${n}-\u00e9`;
  }
}

interface Written {
  /** The frame as written (without its line ending). */
  text: string;
  /** The id its answer must carry; null when the frame has no usable id. */
  id: string | number | null;
  frame: RpcFrame;
}

function writeRpc(frame: RpcFrame): Written {
  switch (frame.kind) {
    case 'request': {
      const id = freshId(frame.idStyle);
      const body: Record<string, unknown> = { jsonrpc: '2.0', id, method: frame.method };
      if (frame.params !== undefined) body.params = frame.params;
      return { text: JSON.stringify(body), id, frame };
    }
    case 'hello': {
      const id = freshId(1);
      return { text: JSON.stringify({ jsonrpc: '2.0', id, method: 'hello', params: { version: 1, session: frame.session, subscribe: frame.subscribe } }), id, frame };
    }
    case 'noJsonrpc': {
      const id = freshId(frame.idStyle);
      return { text: JSON.stringify({ id, method: frame.method, params: {} }), id, frame };
    }
    case 'badId':
      return { text: `{"jsonrpc":"2.0","id":${frame.idText},"method":${JSON.stringify(frame.method)},"params":{}}`, id: null, frame };
    case 'garbage':
      return { text: frame.text, id: null, frame };
    case 'envelope':
      return { text: JSON.stringify(frame.envelope), id: null, frame };
    case 'oversized':
      return { text: `{"jsonrpc":"2.0","id":"big","method":"peers.list","params":{"pad":"${'o'.repeat(frame.size)}"}}`, id: null, frame };
  }
}

/** A blank line is a keep-alive and gets no answer, so garbage that is only spaces is padded. */
function lineOf(text: string): string {
  return text.trim() === '' ? `${text}x` : text;
}

/** The problem with one error object, or null: its code is one of the protocol's, not INTERNAL, with the documented number. */
function errorProblem(error: any): string | null {
  const code = error?.data?.code;
  if (!(ERROR_CODES as readonly string[]).includes(code)) return `error.data.code ${JSON.stringify(code)} is not an ERROR_CODE`;
  if (code === 'INTERNAL') return `INTERNAL (${error.message})`;
  if (error.code !== rpcNumber(code)) return `numeric code ${error.code} for ${code}, expected ${rpcNumber(code)}`;
  if (typeof error.message !== 'string' || error.message.length === 0) return 'no message';
  return null;
}

/** What the answer to a request must be, judged in frame order (hello state as the hub saw it). */
function expectedCodes(frame: RpcFrame, helloed: boolean): { codes: string[]; why: string } | null {
  if (frame.kind === 'hello') return null; // success, or SESSION_COLLISION / BAD_REQUEST / ...: any valid answer
  if (frame.kind === 'noJsonrpc') return { codes: ['BAD_FRAME'], why: 'no "jsonrpc": "2.0"' };
  if (frame.kind !== 'request') return null;
  const { method, params } = frame;
  if (method.length > 64) return { codes: ['BAD_REQUEST'], why: 'method name over 64 characters' };
  if (params !== undefined && (typeof params !== 'object' || params === null)) return { codes: ['BAD_REQUEST'], why: 'params not an object' };
  if (!isKnownMethod(method)) {
    // Which comes first before hello, the method check or the hello check, is the hub's choice.
    return { codes: helloed ? ['UNKNOWN_METHOD'] : ['UNKNOWN_METHOD', 'UNAUTHENTICATED'], why: `no method ${JSON.stringify(method)}` };
  }
  const violation = shapeViolation(method, params ?? {});
  if (violation === null) return null;
  const mayBeUnauthenticated = method !== 'hello' && (!helloed || SHAPES[method]!.operatorOnly === true);
  return { codes: mayBeUnauthenticated ? ['BAD_REQUEST', 'UNAUTHENTICATED'] : ['BAD_REQUEST'], why: violation };
}

/** Splits bytes at offsets (taken modulo the length). */
function cut(bytes: Buffer, offsets: readonly number[]): Buffer[] {
  const points = [...new Set(offsets.map((o) => o % bytes.length))].filter((p) => p > 0).sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const p of points) {
    pieces.push(bytes.subarray(start, p));
    start = p;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

let run = 0;

/** A value as JSON, cut short for failure messages. */
function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 240 ? `${text.slice(0, 240)}…` : text;
}

/** A fresh connection still gets a plain hello and a mail.send answered. */
async function hubStillServes(socketPath: string): Promise<void> {
  const check = await RawClient.connect(socketPath);
  try {
    const session = `check-${++run}`;
    const hello = await check.hello({ session });
    expect(hello.result, `hello after fuzzing: ${JSON.stringify(hello)}`).toMatchObject({ session });
    const sent = await check.request('mail.send', { to: [session], text: 'still here' });
    expect(sent.result, `mail.send after fuzzing: ${JSON.stringify(sent)}`).toMatchObject({ duplicate: false, recipients: [{ to: session }] });
  } finally {
    check.destroy();
  }
}

describe('protocol fuzzing against a real hub', () => {
  let testHub: TestHub;
  beforeAll(async () => {
    // Fuzzing claims many fresh names and sends as fast as it can: neither limit is under test here.
    testHub = await startTestHub({ limits: { maxFrameBytes: MAX_FRAME, ratePerSecond: 0, newHandlesPerMinute: 0 } });
  });
  afterAll(runCleanups);

  it('JSON-RPC: every frame gets exactly one answer, errors are typed and never INTERNAL, bad params are BAD_REQUEST, unknown methods UNKNOWN_METHOD', async () => {
    const script = fc.record({
      first: fc.oneof(helloFrame, rpcRequest),
      rest: fc.array(rpcFrame, { maxLength: 14 }),
      crlf: fc.boolean(),
      offsets: fc.array(fc.nat(), { maxLength: 6 }),
    });
    await fc.assert(
      fc.asyncProperty(script, async ({ first, rest, crlf, offsets }) => {
        const raw = await RawClient.connect(testHub.paths.socketPath);
        try {
          const written = [first, ...rest].map(writeRpc);
          const ending = crlf ? '\r\n' : '\n';
          const bytes = Buffer.from(written.map((w) => `${lineOf(w.text)}${ending}`).join(''));
          for (const piece of cut(bytes, offsets)) await raw.write(piece);
          const withId = written.filter((w) => w.id !== null);
          const nullCount = written.length - withId.length;
          const answered = () => {
            const ids = new Set(raw.lines.map((l) => l.json?.id));
            return withId.every((w) => ids.has(w.id)) && raw.lines.filter((l) => l.json?.id === null).length >= nullCount;
          };
          await waitUntil(answered, { timeoutMs: 5000, what: 'an answer to every frame' }).catch(() => undefined);
          // A last round trip, so an answer sent twice has had its chance to show up.
          const sentinel = await raw.request('peers.list');
          expect(sentinel.result ?? sentinel.error).toBeDefined();

          const problems: string[] = [];
          for (const l of raw.lines) {
            if (l.json === undefined) problems.push(`a line that is not JSON: ${l.text.slice(0, 120)}`);
            else if (l.json.error !== undefined) {
              const p = errorProblem(l.json.error);
              if (p) problems.push(`answer ${JSON.stringify(l.json).slice(0, 200)}: ${p}`);
            }
          }
          let helloed = false;
          for (const w of written) {
            if (w.id === null) continue;
            const answers = raw.lines.filter((l) => l.json?.id === w.id && ('result' in l.json || 'error' in l.json));
            if (answers.length !== 1) {
              problems.push(`${answers.length} answers to ${w.text.slice(0, 160)}`);
              continue;
            }
            const answer = answers[0]!.json;
            const want = expectedCodes(w.frame, helloed);
            if (want) {
              const code = answer.error?.data?.code;
              if (!want.codes.includes(code)) {
                problems.push(`${w.text.slice(0, 160)} (${want.why}) was answered ${JSON.stringify(answer).slice(0, 200)}; expected ${want.codes.join(' or ')}`);
              }
            }
            const isHello = w.frame.kind === 'hello' || (w.frame.kind === 'request' && w.frame.method === 'hello');
            if (isHello && answer.result !== undefined) helloed = true;
          }
          const nullAnswers = raw.lines.filter((l) => l.json?.id === null);
          if (nullAnswers.length !== nullCount) {
            problems.push(`${nullAnswers.length} answers without an id to ${nullCount} frames without a usable id: ${written.filter((w) => w.id === null).map((w) => w.text.slice(0, 60)).join(' | ')}`);
          }
          for (const a of nullAnswers) {
            const code = a.json.error?.data?.code;
            if (!['BAD_FRAME', 'FRAME_TOO_LARGE', 'BAD_REQUEST'].includes(code)) problems.push(`an answer without an id: ${a.text.slice(0, 160)}`);
          }
          expect(problems).toEqual([]);
        } finally {
          raw.destroy();
        }
        await hubStillServes(testHub.paths.socketPath);
      }),
      { seed: SEED, numRuns: 150, plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS)] },
    );
  });

  it('Intercom: every envelope, JSON-RPC frame and bad line gets exactly one answer, and errors are typed and never INTERNAL', async () => {
    const registerFirst = fc.record({ id: fc.nat(9999), session: handleArb, extra: fc.option(fc.tuple(keyArb, jsonish), { nil: undefined }) }).map(({ id, session, extra }) => {
      const payload: Record<string, unknown> = extra ? Object.fromEntries([extra]) : {};
      return { id, type: 'register', from_session: session, payload } as Record<string, unknown>;
    });
    const later = fc.oneof(
      { weight: 6, arbitrary: envelopeArb.map((e) => ({ text: JSON.stringify(e), envelope: e })) },
      { weight: 1, arbitrary: rpcRequest.map((f) => ({ text: writeRpc(f).text, envelope: null })) },
      { weight: 1, arbitrary: garbageArb.map((t) => ({ text: lineOf(t), envelope: null })) },
      { weight: 1, arbitrary: fc.constant({ text: writeRpc({ kind: 'oversized', size: MAX_FRAME + 10 }).text, envelope: null }) },
    );
    const script = fc.record({ first: fc.oneof({ weight: 4, arbitrary: registerFirst }, { weight: 1, arbitrary: envelopeArb }), rest: fc.array(later, { maxLength: 12 }), offsets: fc.array(fc.nat(), { maxLength: 6 }) });
    await fc.assert(
      fc.asyncProperty(script, async ({ first, rest, offsets }) => {
        const raw = await RawClient.connect(testHub.paths.socketPath);
        try {
          // Envelope ids unique across runs, so each answer's reply_to names its frame.
          const frames = [{ text: '', envelope: first as Record<string, unknown> | null }, ...rest].map((f) => {
            if (!f.envelope) return { text: f.text, replyTo: null as string | null };
            const e = { ...f.envelope };
            if (typeof e.id === 'number') e.id = ++idCounter;
            else if (typeof e.id === 'string') e.id = `${e.id}-${++idCounter}`;
            const replyTo = typeof e.id === 'string' || typeof e.id === 'number' ? String(e.id) : null;
            return { text: JSON.stringify(e), replyTo };
          });
          const bytes = Buffer.from(frames.map((f) => `${f.text}\n`).join(''));
          for (const piece of cut(bytes, offsets)) await raw.write(piece);
          const answers = () => raw.lines.filter((l) => l.json?.type !== 'chat'); // chat lines are mail pushed to us
          await waitUntil(() => answers().length >= frames.length, { timeoutMs: 5000, what: 'an answer to every frame' }).catch(() => undefined);
          // A last round trip: an unknown envelope type is answered at once, in order.
          const sentinelId = `sentinel-${++idCounter}`;
          await raw.sendObject({ id: sentinelId, type: 'sentinel' });
          await raw.waitFor((j) => j?.reply_to === sentinelId || (j?.jsonrpc === '2.0' && j?.error), { timeoutMs: 5000 }).catch(() => undefined);

          const problems: string[] = [];
          const got = answers().filter((l) => l.json?.reply_to !== sentinelId);
          if (got.length !== frames.length) {
            problems.push(`${got.length} answers to ${frames.length} frames: ${got.map((l) => l.text.slice(0, 100)).join(' | ')}`);
          }
          for (const l of got) {
            const j = l.json;
            if (j === undefined) problems.push(`a line that is not JSON: ${l.text.slice(0, 120)}`);
            else if (j.jsonrpc !== undefined) problems.push(`a JSON-RPC answer on an Intercom connection: ${l.text.slice(0, 160)}`);
            else if (!['welcome', 'ack', 'error'].includes(j.type)) problems.push(`an answer of type ${JSON.stringify(j.type)}`);
            else if (j.type === 'error') {
              const code = j.payload?.code;
              if (!(ERROR_CODES as readonly string[]).includes(code)) problems.push(`error code ${JSON.stringify(code)} is not an ERROR_CODE: ${l.text.slice(0, 160)}`);
              else if (code === 'INTERNAL') problems.push(`INTERNAL: ${String(j.payload?.message).slice(0, 300)}`);
            }
          }
          for (const f of frames) {
            if (f.replyTo === null) continue;
            const n = got.filter((l) => l.json?.reply_to === f.replyTo).length;
            if (n !== 1) problems.push(`${n} answers with reply_to ${f.replyTo} to ${f.text.slice(0, 160)}`);
          }
          expect(problems).toEqual([]);
        } finally {
          raw.destroy();
        }
        await hubStillServes(testHub.paths.socketPath);
      }),
      { seed: SEED + 1, numRuns: 100, plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS)] },
    );
  });

  it('a huge replyTo (an integer beyond SQLite\'s 64 bits) is a typed refusal, not INTERNAL, in both dialects', async () => {
    const raw = await RawClient.connect(testHub.paths.socketPath);
    const session = `huge-${++run}`;
    expect((await raw.hello({ session })).result).toBeDefined();
    for (const replyTo of [2 ** 64, 1e300, Number.MAX_VALUE]) {
      const r = await raw.request('mail.send', { to: [session], text: 'x', replyTo });
      expect(r.error?.data?.code, `mail.send replyTo ${replyTo}: ${brief(r)}`).toMatch(/^(BAD_REQUEST|INVALID_REPLY)$/);
    }
    raw.destroy();
    const ic = await RawClient.connect(testHub.paths.socketPath);
    const icSession = `huge-ic-${++run}`;
    await ic.sendObject({ id: `reg-${icSession}`, type: 'register', from_session: icSession });
    expect(await ic.waitFor((j) => j.reply_to === `reg-${icSession}`)).toMatchObject({ type: 'welcome' });
    await ic.write(`{"id":"c-${icSession}","type":"chat","to_session":"${icSession}","reply_to":1e300,"payload":"x"}\n`);
    const answer = await ic.waitFor((j) => j.reply_to === `c-${icSession}`);
    expect(answer.type === 'ack' || answer.payload?.code !== 'INTERNAL', brief(answer)).toBe(true);
    ic.destroy();
  });

  // The same properties at their sharpest: each built-in property name, as a method and as a key.
  it.each(PROTO_NAMES)('method %s is UNKNOWN_METHOD, before and after hello', async (name) => {
    const raw = await RawClient.connect(testHub.paths.socketPath);
    const before = await raw.request(name, {});
    expect(before.error?.data?.code, brief(before)).toMatch(/^(UNKNOWN_METHOD|UNAUTHENTICATED)$/);
    expect((await raw.hello({ session: `proto-m-${++run}` })).result).toBeDefined();
    const after = await raw.request(name, {});
    expect(after.error?.data?.code, brief(after)).toBe('UNKNOWN_METHOD');
    raw.destroy();
  });

  it.each(PROTO_NAMES)('a params key %s is an unknown field: BAD_REQUEST for hello, peers.list and mail.list', async (name) => {
    const raw = await RawClient.connect(testHub.paths.socketPath);
    const extra = (o: Record<string, unknown>) => Object.fromEntries([...Object.entries(o), [name, 1]]);
    const hello = await raw.request('hello', extra({ version: 1, session: `proto-k-${++run}` }));
    expect(hello.error?.data?.code, `hello ${brief(extra({ version: 1 }))}: ${brief(hello)}`).toBe('BAD_REQUEST');
    expect((await raw.hello({ session: `proto-k-${++run}` })).result).toBeDefined();
    for (const [method, params] of [['peers.list', {}], ['mail.list', { limit: 1 }]] as const) {
      const r = await raw.request(method, extra(params));
      expect(r.error?.data?.code, `${method} ${brief(extra(params))}: ${brief(r)}`).toBe('BAD_REQUEST');
    }
    raw.destroy();
  });
});
