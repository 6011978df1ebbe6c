// The page's frames, checked before the session acts on any: a page is a browser anywhere the
// operator opened it, and its socket may carry anything. The shapes are page-protocol.ts's; the
// bounds are the server's (a paste is at most PAGE_INPUT_MAX chars, a view at most PAGE_VIEW_MAX
// rows, a size inside what a terminal can be). A frame that fails gets a sentence, never a throw.
import * as z from 'zod';
import { lazySchema } from '../protocol/lazy-schema.js';
import { check } from '../util/schema.js';
import type { PageToServer } from './page-protocol.js';

/** Longest keys-or-paste frame (chars; the listener bounds a frame at 64 KiB first): the page sends a long paste in pieces. */
export const PAGE_INPUT_MAX = 64 * 1024;
/** Most rows one page may view at once. */
export const PAGE_VIEW_MAX = 256;

// Built at a page's first frame (protocol/lazy-schema.ts says why): most servers never serve a page.
const pageFrame = lazySchema(() => {
  const rowName = z.string().min(1).max(64);
  const cols = z.number().int().min(2).max(1000);
  const rows = z.number().int().min(1).max(500);
  return z.discriminatedUnion('t', [
    z.strictObject({ t: z.literal('view'), rows: z.array(rowName).max(PAGE_VIEW_MAX) }),
    z.strictObject({ t: z.literal('attach'), name: rowName.nullable(), cols: cols.optional(), rows: rows.optional() }),
    z.strictObject({ t: z.literal('input'), name: rowName, data: z.string().max(PAGE_INPUT_MAX) }),
    z.strictObject({ t: z.literal('resize'), name: rowName, cols, rows }),
    z.strictObject({ t: z.literal('req'), id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), method: z.string().min(1).max(100), params: z.unknown().optional() }),
  ]);
});

/** The frame as PageToServer, or why it is not one. */
export function parsePageFrame(value: unknown): { ok: true; frame: PageToServer } | { ok: false; problem: string } {
  const checked = check(pageFrame(), value);
  return checked.ok ? { ok: true, frame: checked.value as PageToServer } : { ok: false, problem: checked.error.message };
}
