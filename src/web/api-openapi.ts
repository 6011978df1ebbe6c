// The Intercom HTTP API described as OpenAPI 3.1, served at GET /api/openapi.json, so a client can
// be generated or checked against it. Written by hand beside the routes (api-routes.ts): the shapes
// are the hub's method params and results (docs/PROTOCOL.md), which the hub validates itself.
import { MESSAGE_KINDS } from '../protocol/message-rules.js';

const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const query = (name: string, schema: object, description: string) => ({ name, in: 'query', required: false, schema, description });
const errors = {
  '400': { description: 'BAD_REQUEST, BAD_FRAME, INVALID_REPLY ...', ...json(ref('Error')) },
  '401': { description: 'No credential, or a wrong or revoked one (nothing else is said).', ...json(ref('Error')) },
  '403': { description: 'READ_ONLY (a view-only credential), or the hub refused the identity this (UNAUTHENTICATED).', ...json(ref('Error')) },
  '413': { description: 'FRAME_TOO_LARGE (the body) or MESSAGE_TOO_LARGE (the text).', ...json(ref('Error')) },
  '429': { description: 'RATE_LIMITED, QUEUE_FULL, REPLY_BUDGET (Retry-After when the hub says when).', ...json(ref('Error')) },
  '503': { description: 'NO_HUB, HUB_BUSY, SHUTTING_DOWN, DB_LOCKED ...', ...json(ref('Error')) },
};
const ok = (description: string, schema: object) => ({ '200': { description, ...json(schema) }, ...errors });

export function openApiDocument(): object {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard Intercom API',
      version: '1',
      description:
        'Mail between the operator, rows and scripts, over the swb web listener. Identity comes from the credential, never the body: the web token (or a browser\'s login: its cookie together with its page key) is the operator; a row\'s SWB_TOKEN as a bearer token is that row. Same limits, error codes and receipts as the hub socket (docs/PROTOCOL.md).',
    },
    security: [{ bearer: [] }, { cookie: [], pageKey: [] }],
    paths: {
      '/api/send': {
        post: {
          summary: 'Send a message (mail.send); answers its receipt.',
          requestBody: { required: true, ...json(ref('SendRequest')) },
          responses: ok('Accepted: the message id and each recipient\'s receipt.', ref('SendResult')),
        },
      },
      '/api/inbox': {
        get: {
          summary: 'Unread mail, a page at a time (mail.list unreadOnly); marks it delivered.',
          parameters: [query('after', { type: 'integer', minimum: 0 }, 'only mail with a sequence above this'), query('limit', { type: 'integer', minimum: 1, maximum: 1000 }, 'page size')],
          responses: ok('A page; more=true says ask again.', { type: 'object', properties: { messages: { type: 'array', items: ref('Message') }, lastSeq: { type: 'integer' }, more: { type: 'boolean' } } }),
        },
      },
      '/api/history': {
        get: {
          summary: 'The operator: all mail, newest first (mail.history). A row: its own mail, read and unread (mail.list).',
          parameters: [
            query('before', { type: 'integer' }, 'operator: messages before this id'),
            query('after', { type: 'integer' }, 'row: mail with a sequence above this'),
            query('limit', { type: 'integer' }, 'page size'),
            query('peer', { type: 'string' }, 'operator: only mail to or from this handle'),
          ],
          responses: ok('A page.', { type: 'object', properties: { messages: { type: 'array', items: ref('Message') }, more: { type: 'boolean' } } }),
        },
      },
      '/api/read': {
        post: {
          summary: 'Mark messages read (mail.read; the seed\'s ack).',
          requestBody: { required: true, ...json({ type: 'object', required: ['ids'], properties: { ids: { type: 'array', items: { type: 'integer', minimum: 1 }, minItems: 1, maxItems: 1000 } }, additionalProperties: false }) },
          responses: ok('How many changed; ids not sent to the caller.', { type: 'object', properties: { updated: { type: 'integer' }, notFound: { type: 'array', items: { type: 'integer' } } } }),
        },
      },
      '/api/status': {
        get: { summary: 'Pairs of rows held by the reply budget, and the federation link.', responses: ok('Status.', { type: 'object', properties: { held: { type: 'array' }, budget: { type: 'integer' }, federation: {} } }) },
      },
      '/api/status/{id}': {
        get: {
          summary: 'A message\'s receipts (receipt.get): accepted, delivered, woken, read, replied per recipient.',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
          responses: ok('Receipts.', ref('Receipts')),
        },
      },
      '/api/wait': {
        get: {
          summary: 'Long poll (mail.wait): answers when mail arrives or after timeout seconds.',
          parameters: [
            query('timeout', { type: 'number', minimum: 0, maximum: 30 }, 'seconds (default 30, the hub\'s maximum)'),
            query('after', { type: 'integer' }, 'wait for mail with a sequence above this'),
            query('peek', { type: 'string', enum: ['1'] }, 'look without marking delivered'),
          ],
          responses: ok('Mail, or timedOut=true.', { type: 'object', properties: { messages: { type: 'array', items: ref('Message') }, timedOut: { type: 'boolean' }, more: { type: 'boolean' } } }),
        },
      },
      '/api/peers': {
        get: {
          summary: 'Known sessions (peers.list), in handle order.',
          parameters: [query('after', { type: 'string' }, 'handles after this one'), query('limit', { type: 'integer', minimum: 1, maximum: 500 }, 'page size'), query('online', { type: 'string', enum: ['1'] }, 'online only')],
          responses: ok('A page of peers.', { type: 'object' }),
        },
      },
      '/api/ws': {
        get: {
          summary: 'WebSocket: what `swb events` streams, one JSON object per frame (?kinds=mail,receipt,...&row=NAME). The first frame is {subscribed}; an error frame {error} precedes a close.',
          responses: { '101': { description: 'Switching protocols.' }, '401': errors['401'] },
        },
      },
      '/api/openapi.json': { get: { summary: 'This document.', responses: { '200': { description: 'OpenAPI 3.1.', ...json({ type: 'object' }) } } } },
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'The web token (swb web) or a row\'s SWB_TOKEN.' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'swb_web', description: 'What a browser gets for the web token (POST /login); only with its page key.' },
        pageKey: { type: 'apiKey', in: 'header', name: 'X-Swb-Page-Key', description: 'The page key POST /login answers with the cookie; a cookie without its own key is 401.' },
      },
      schemas: {
        Error: { type: 'object', required: ['error'], properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } } } } },
        SendRequest: {
          type: 'object',
          required: ['to', 'text'],
          properties: {
            to: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 256 }], description: 'handle, handle@node, all, or a list; a leading @ is allowed' },
            kind: { type: 'string', enum: [...MESSAGE_KINDS] },
            text: { type: 'string' },
            replyTo: { type: 'integer', minimum: 1 },
            messageId: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$', description: 'chosen by the sender, stable across retries (no duplicate)' },
          },
          description: 'A `from` field is ignored: the sender is the credential.',
        },
        SendResult: { type: 'object', properties: { id: { type: 'integer' }, recipients: { type: 'array' } } },
        Message: { type: 'object', properties: { id: { type: 'integer' }, from: { type: 'string' }, to: { type: 'string' }, kind: { type: 'string' }, text: { type: 'string' }, seq: { type: 'integer' } } },
        Receipts: { type: 'object', properties: { id: { type: 'integer' }, from: { type: 'string' }, recipients: { type: 'array' } } },
      },
    },
  };
}
