// The Intercom HTTP API (issue #32), tested with plain fetch against a real hub: every endpoint; the
// web token speaking as the operator and a row's own SWB_TOKEN as that row; a forged `from` ignored;
// the long poll answering on mail and on timeout; limits and error codes identical to the same
// request over hub.sock; a view-only credential refused what changes anything; /api/ws pushing what
// `swb events` streams, a row seeing only its own.
import { afterEach, describe, expect, test } from 'vitest';
import type { MailItem, ReceiptResult, SendResult } from '../../../src/protocol/methods.js';
import { SwbError } from '../../../src/protocol/error-codes.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, connectOperator } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { frameWhere, openSocket, startTestWeb, withPageKey, type PageLogin, type TestWeb } from '../../helpers/web-harness.js';

afterEach(runCleanups);

type Json = any;

/** `auth`: a bearer token, or a page's login (its cookie and page key). */
function api(web: TestWeb, auth: string | PageLogin) {
  const headers = (extra: Record<string, string> = {}) => ({ ...(typeof auth === 'string' ? { authorization: `Bearer ${auth}` } : auth.headers), ...extra });
  return {
    get: async (path: string): Promise<{ status: number; body: Json }> => {
      const res = await fetch(`${web.base}${path}`, { headers: headers() });
      return { status: res.status, body: await res.json() };
    },
    post: async (path: string, body: unknown): Promise<{ status: number; body: Json; headers: Headers }> => {
      const res = await fetch(`${web.base}${path}`, { method: 'POST', headers: headers({ 'content-type': 'application/json' }), body: typeof body === 'string' ? body : JSON.stringify(body) });
      return { status: res.status, body: await res.json(), headers: res.headers };
    },
  };
}

function registerRow(web: TestWeb, name: string): string {
  const r = web.hub.core.sessions.registerRow(name);
  if (!r.ok) throw new Error(r.error.message);
  web.hub.core.sessions.setRowRunning(name, true);
  return r.token;
}

/** The same method over hub.sock as `identity`: its answer, or its error's code and message. */
async function overSocket(web: TestWeb, identity: { session: string; token: string } | 'operator', method: string, params: Record<string, unknown>): Promise<{ ok: Json } | { code: string; message: string }> {
  const { client } = identity === 'operator' ? await connectOperator(web.paths) : await connectClient(web.paths, identity);
  try {
    return { ok: await client.request(method, params) };
  } catch (err) {
    if (err instanceof SwbError) return { code: err.code, message: err.message };
    throw err;
  } finally {
    client.destroy();
  }
}

describe('Intercom API: identity from the credential', () => {
  test('the web token (as bearer, or its cookie) speaks as the operator; a forged from is ignored', async () => {
    const web = await startTestWeb();
    registerRow(web, 'alpha');
    for (const auth of [await web.token(), await web.login()]) {
      const sent = await api(web, auth).post('/api/send', { to: '@alpha', text: 'from the web', from: 'alpha', from_session: 'alpha' });
      expect(sent.status).toBe(200);
      const r = sent.body as SendResult;
      expect(r.recipients).toEqual([{ to: 'alpha', seq: expect.any(Number), state: 'accepted' }]);
      const status = await api(web, auth).get(`/api/status/${r.id}`);
      expect(status.status).toBe(200);
      expect((status.body as ReceiptResult).from).toBe('operator');
    }
  });

  test("a row's SWB_TOKEN as bearer speaks as that row, sees its own mail only, and stops working once the row is registered again", async () => {
    const web = await startTestWeb();
    const alphaToken = registerRow(web, 'alpha');
    registerRow(web, 'beta');
    const op = api(web, await web.token());
    const alpha = api(web, alphaToken);
    // The operator writes to alpha; alpha reads its inbox over HTTP.
    const toAlpha = await op.post('/api/send', { to: 'alpha', kind: 'task', text: 'do the thing' });
    expect(toAlpha.status).toBe(200);
    const inbox = await alpha.get('/api/inbox');
    expect(inbox.status).toBe(200);
    expect((inbox.body.messages as MailItem[]).map((m) => [m.from, m.kind, m.text])).toEqual([['operator', 'task', 'do the thing']]);
    // alpha sends (claiming to be beta: ignored) to beta.
    const sent = await alpha.post('/api/send', { to: ['beta'], text: 'hi beta', from: 'beta', replyTo: undefined });
    expect(sent.status).toBe(200);
    const receipt = await op.get(`/api/status/${sent.body.id}`);
    expect(receipt.body.from).toBe('alpha');
    // The operator's history holds both; alpha's history only its own mail.
    const history = await op.get('/api/history');
    expect((history.body.messages as MailItem[]).map((m) => m.from).sort()).toEqual(['alpha', 'operator']);
    const alphaHistory = await alpha.get('/api/history');
    expect((alphaHistory.body.messages as MailItem[]).map((m) => m.text)).toEqual(['do the thing']);
    // alpha may not look at a message it neither sent nor received.
    const betaToOp = await api(web, registerRow(web, 'gamma')).post('/api/send', { to: 'beta', text: 'private' });
    const peek = await alpha.get(`/api/status/${betaToOp.body.id}`);
    expect(peek.status).toBe(404);
    expect(peek.body.error.code).toBe('NOT_FOUND');
    // Registered again (a restart): the old token names nobody.
    registerRow(web, 'alpha');
    expect((await alpha.get('/api/inbox')).status).toBe(401);
  });

  test('mark read (the ack) moves the receipt; another row cannot ack it', async () => {
    const web = await startTestWeb();
    const alphaToken = registerRow(web, 'alpha');
    const betaToken = registerRow(web, 'beta');
    const op = api(web, await web.token());
    const sent = await op.post('/api/send', { to: 'alpha', text: 'read me' });
    const id = sent.body.id as number;
    const other = await api(web, betaToken).post('/api/read', { ids: [id] });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('NOT_FOUND');
    const read = await api(web, alphaToken).post('/api/read', { ids: [id] });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ updated: 1, notFound: [] });
    const status = await op.get(`/api/status/${id}`);
    expect(status.body.recipients[0].state).toBe('read');
  });
});

describe('Intercom API: endpoints', () => {
  test('peers, status, openapi', async () => {
    const web = await startTestWeb();
    registerRow(web, 'alpha');
    const op = api(web, await web.token());
    const peers = await op.get('/api/peers');
    expect(peers.status).toBe(200);
    expect(JSON.stringify(peers.body)).toContain('"alpha"');
    const online = await op.get('/api/peers?online=1&limit=10');
    expect(online.status).toBe(200);
    const status = await op.get('/api/status');
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ held: [], budget: expect.any(Number), federation: null });
    const doc = await op.get('/api/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/api/send', '/api/inbox', '/api/history', '/api/read', '/api/status', '/api/status/{id}', '/api/wait', '/api/peers', '/api/ws', '/api/openapi.json']),
    );
    const missing = await op.get('/api/nothing');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const wrongMethod = await fetch(`${web.base}/api/send`, { headers: { authorization: `Bearer ${await web.token()}` } });
    expect(wrongMethod.status).toBe(405);
  });

  test('the inbox pages: limit, more, after', async () => {
    const web = await startTestWeb();
    const alphaToken = registerRow(web, 'alpha');
    const op = api(web, await web.token());
    for (let i = 0; i < 3; i++) expect((await op.post('/api/send', { to: 'alpha', text: `m${i}` })).status).toBe(200);
    const alpha = api(web, alphaToken);
    const first = await alpha.get('/api/inbox?limit=2');
    expect(first.body.messages.map((m: MailItem) => m.text)).toEqual(['m0', 'm1']);
    expect(first.body.more).toBe(true);
    const next = await alpha.get(`/api/inbox?after=${first.body.messages[1].seq}`);
    expect(next.body.messages.map((m: MailItem) => m.text)).toEqual(['m2']);
  });

  test('the long poll returns on mail, and on timeout', async () => {
    const web = await startTestWeb();
    const alphaToken = registerRow(web, 'alpha');
    const alpha = api(web, alphaToken);
    const started = Date.now();
    const timedOut = await alpha.get('/api/wait?timeout=0.3');
    expect(timedOut.status).toBe(200);
    expect(timedOut.body).toMatchObject({ messages: [], timedOut: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const op = api(web, await web.token());
    const waiting = alpha.get('/api/wait?timeout=20');
    // The wait is parked on the hub before the mail is sent.
    const parked = () => (web.hub.core.waiters as unknown as { byHandle: Map<string, Set<unknown>> }).byHandle.get('alpha')?.size ?? 0;
    await waitUntil(() => parked() > 0, { what: 'the long poll to park on the hub' });
    const sent = await op.post('/api/send', { to: 'alpha', text: 'wake up' });
    const woke = await waiting;
    expect(woke.status).toBe(200);
    expect(woke.body.timedOut).toBe(false);
    expect(woke.body.messages.map((m: MailItem) => m.id)).toEqual([sent.body.id]);
  });

  test('a long poll the client leaves ends its hub wait (nothing is marked delivered to nobody); one identity holds at most 16', async () => {
    const web = await startTestWeb();
    const alphaToken = registerRow(web, 'alpha');
    const parked = () => (web.hub.core.waiters as unknown as { byHandle: Map<string, Set<unknown>> }).byHandle.get('alpha')?.size ?? 0;
    const left = new AbortController();
    const abandoned = fetch(`${web.base}/api/wait?timeout=20`, { headers: { authorization: `Bearer ${alphaToken}` }, signal: left.signal }).catch(() => 'aborted');
    await waitUntil(() => parked() === 1, { what: 'the long poll to park' });
    left.abort();
    expect(await abandoned).toBe('aborted');
    await waitUntil(() => parked() === 0, { what: 'the hub wait to end with the client' });
    const op = api(web, await web.token());
    const sent = await op.post('/api/send', { to: 'alpha', text: 'after they left' });
    expect((await op.get(`/api/status/${sent.body.id}`)).body.recipients[0].state).toBe('accepted');
    // Sixteen waits of one row at once; the seventeenth is told to come back.
    const polls = new AbortController();
    const many = Array.from({ length: 16 }, () => fetch(`${web.base}/api/wait?timeout=20&peek=1&after=${sent.body.recipients[0].seq}`, { headers: { authorization: `Bearer ${alphaToken}` }, signal: polls.signal }).catch(() => null));
    await waitUntil(() => parked() === 16, { what: 'sixteen long polls' });
    const extra = await api(web, alphaToken).get('/api/wait?timeout=1');
    expect(extra.status).toBe(503);
    expect(extra.body.error.code).toBe('HUB_BUSY');
    polls.abort();
    await Promise.all(many);
    await waitUntil(() => parked() === 0, { what: 'the waits to end' });
  });

  test('/api/ws pushes what swb events streams: the operator everything, a row only its own; unauthenticated refused', async () => {
    const web = await startTestWeb();
    const alphaToken = registerRow(web, 'alpha');
    registerRow(web, 'beta');
    const ws = web.base.replace('http', 'ws');
    const op1 = await web.login();
    const opSock = await openSocket(withPageKey(`${ws}/api/ws?kinds=mail`, op1), { cookie: op1.cookie, origin: web.base });
    const rowSock = await openSocket(`${ws}/api/ws`, { authorization: `Bearer ${alphaToken}` });
    if (!('ws' in opSock) || !('ws' in rowSock)) throw new Error('refused');
    await frameWhere(opSock.frames, (f) => f.subscribed, 'operator subscribed');
    await frameWhere(rowSock.frames, (f) => f.subscribed, 'row subscribed');
    const op = api(web, await web.token());
    const toBeta = await op.post('/api/send', { to: 'beta', text: 'for beta' });
    const toAlpha = await op.post('/api/send', { to: 'alpha', text: 'for alpha' });
    const mailEvent = (id: number) => (f: any) => f.kind === 'mail' && JSON.stringify(f).includes(`${id}`);
    await frameWhere(opSock.frames, mailEvent(toBeta.body.id), 'the operator hears mail to beta');
    await frameWhere(rowSock.frames, mailEvent(toAlpha.body.id), 'alpha hears its own mail');
    expect(rowSock.frames.some((f: any) => f.kind === 'mail' && f.row === 'beta')).toBe(false);
    // A row asking for another row's events is refused by the hub, and the socket closes.
    const nosy = await openSocket(`${ws}/api/ws?row=beta`, { authorization: `Bearer ${alphaToken}` });
    if (!('ws' in nosy)) throw new Error('refused');
    const err = await frameWhere<{ error: { code: string } }>(nosy.frames, (f) => f.error, 'the refusal');
    expect(err.error.code).toBe('UNAUTHENTICATED');
    expect(await openSocket(`${ws}/api/ws`, {})).toEqual({ refused: 401 });
    expect(await openSocket(`${ws}/api/ws`, { authorization: 'Bearer nope' })).toEqual({ refused: 401 });
  });
});

describe('Intercom API: the same limits and error codes as the socket', () => {
  test('each refusal answers what hub.sock answers for the same request, with a fitting HTTP status', async () => {
    const web = await startTestWeb();
    const alphaToken = registerRow(web, 'alpha');
    const alpha = api(web, alphaToken);
    const asAlpha = { session: 'alpha', token: alphaToken };
    await alpha.post('/api/send', { to: 'operator', text: 'first', messageId: 'same-id' });
    const cases: Array<[string, Record<string, unknown>, number]> = [
      ['MESSAGE_TOO_LARGE', { to: ['operator'], text: 'x'.repeat(20_000) }, 413],
      ['UNKNOWN_PEER', { to: ['nobody-here'], text: 'hi' }, 404],
      ['BAD_REQUEST', { to: ['operator'], text: 'hi', kind: 'shout' }, 400],
      ['BAD_REQUEST', { to: ['operator'], text: 'hi', extra: 1 }, 400],
      ['MESSAGE_ID_CONFLICT', { to: ['operator'], text: 'different', messageId: 'same-id' }, 409],
      ['INVALID_REPLY', { to: ['operator'], text: 'hi', replyTo: 999_999 }, 400],
    ];
    for (const [code, params, status] of cases) {
      const socket = await overSocket(web, asAlpha, 'mail.send', params);
      const http = await alpha.post('/api/send', params);
      expect(socket, code).toMatchObject({ code });
      expect(http.status, code).toBe(status);
      expect(http.body.error.code, code).toBe(code);
      expect(http.body.error.message, code).toBe((socket as { message: string }).message);
    }
    // Operator-only methods stay operator-only: a row's history is its own mail, never all of it.
    const history = await overSocket(web, asAlpha, 'mail.history', {});
    expect(history).toMatchObject({ code: 'UNAUTHENTICATED' });
    // The wait's bound is the hub's: over 30 s is refused by the same schema.
    const longWait = await alpha.get('/api/wait?timeout=31');
    const socketWait = await overSocket(web, asAlpha, 'mail.wait', { timeoutMs: 31_000 });
    expect(longWait.status).toBe(400);
    expect(longWait.body.error).toMatchObject({ code: 'BAD_REQUEST', message: (socketWait as { message: string }).message });
  });

  test('a body over the frame limit is refused before it is parsed (FRAME_TOO_LARGE, as on the socket)', async () => {
    const web = await startTestWeb();
    const token = await web.token();
    const big = JSON.stringify({ to: ['operator'], text: 'y'.repeat(70 * 1024) });
    const res = await fetch(`${web.base}/api/send`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('FRAME_TOO_LARGE');
    const socket = await overSocket(web, 'operator', 'mail.send', JSON.parse(big));
    expect(socket).toMatchObject({ code: 'FRAME_TOO_LARGE' });
    // Not JSON, or not declared as JSON.
    const notJson = await api(web, token).post('/api/send', '{nope');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('BAD_FRAME');
    const form = await fetch(`${web.base}/api/send`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'to=operator&text=hi' });
    expect(form.status).toBe(400);
  });

  test('the rate limit is the hub\'s: RATE_LIMITED with Retry-After', async () => {
    const web = await startTestWeb({ hubLimits: { limits: { ratePerSecond: 2 } } });
    const alphaToken = registerRow(web, 'alpha');
    const alpha = api(web, alphaToken);
    let limited: Awaited<ReturnType<typeof alpha.post>> | null = null;
    for (let i = 0; i < 20 && !limited; i++) {
      const r = await alpha.post('/api/send', { to: 'operator', text: `n${i}` });
      if (r.status !== 200) limited = r;
    }
    expect(limited?.status).toBe(429);
    expect(limited?.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('Intercom API: view-only', () => {
  test('a view-only token reads everything and is refused send and read at the server', async () => {
    const web = await startTestWeb();
    registerRow(web, 'alpha');
    const full = api(web, await web.token());
    const sent = await full.post('/api/send', { to: 'alpha', text: 'seen, not touched' });
    for (const auth of [await web.token(true), await web.login(true)]) {
      const view = api(web, auth);
      const send = await view.post('/api/send', { to: 'alpha', text: 'nope' });
      expect(send.status).toBe(403);
      expect(send.body.error.code).toBe('READ_ONLY');
      const read = await view.post('/api/read', { ids: [sent.body.id] });
      expect(read.status).toBe(403);
      expect(read.body.error.code).toBe('READ_ONLY');
      expect((await view.get('/api/history')).status).toBe(200);
      expect((await view.get(`/api/status/${sent.body.id}`)).status).toBe(200);
    }
    const history = await full.get('/api/history');
    expect(history.body.messages.map((m: MailItem) => m.text)).toEqual(['seen, not touched']);
  });
});
