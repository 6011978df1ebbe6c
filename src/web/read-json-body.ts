// A request body read as JSON, bounded before it is parsed (as the hub's decoder bounds a frame):
// a Content-Length over the limit is refused without reading a byte, and a body that grows past it
// while streaming is cut off. Only application/json is taken — a cross-site form cannot send it
// without a CORS preflight this listener never grants.
import type { IncomingMessage } from 'node:http';
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';

export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<{ ok: unknown } | { error: SwbErrorValue }> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return { error: swbError('BAD_REQUEST', 'The body must be JSON (Content-Type: application/json).') };
  const tooLarge = (bytes: number | string) => swbError('FRAME_TOO_LARGE', `The request body is ${bytes} bytes, over the hub's frame limit of ${maxBytes}.`, { limit: maxBytes });
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return { error: tooLarge(declared) };
  }
  const body = await new Promise<Buffer | null>((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onData = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        // Stop taking it in; the answer says why and closes the connection (answerError).
        req.off('data', onData);
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', () => resolve(null));
  });
  if (body === null) return { error: tooLarge(`more than ${maxBytes}`) };
  const text = body.toString('utf8');
  try {
    return { ok: JSON.parse(text) as unknown };
  } catch {
    return { error: swbError('BAD_FRAME', 'The request body is not JSON.') };
  }
}
