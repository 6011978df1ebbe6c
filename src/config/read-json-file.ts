// Reads a small JSON file the operator wrote (config, theme): bounded before parsing, regular files only,
// strict UTF-8, comments and trailing commas allowed (JSONC), and syntax errors reported as
// file:line:column with a reason. The SHA-256 of the bytes parsed comes back with the value, so a
// trust decision (config-trust.ts) is about exactly what was read, never a second read of the file.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { parseJsonc } from './parse-jsonc.js';

export type JsonFileResult =
  | { ok: true; value: unknown; sha256: string }
  | { ok: false; missing: boolean; message: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function readJsonFile(path: string, maxBytes: number): JsonFileResult {
  const fail = (message: string, missing = false): JsonFileResult => ({ ok: false, missing, message: `${path}: ${message}` });
  try {
    statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return fail('no such file', true);
    return fail(`cannot read (${code ?? String(err)})`);
  }
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO someone put in place of the file must not hang startup.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return fail(`cannot open (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let bytes: Buffer;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return fail('is not a regular file');
    if (st.size > maxBytes) return fail(`is ${st.size} bytes; the limit is ${maxBytes}`);
    // Room for the size fstat saw and one byte more (a file that grew since shows as too large only
    // past the limit): a buffer of the limit itself zero-filled 1 MB at every config read, twice on
    // a cold start's way to the first frame (issue #33).
    bytes = Buffer.allocUnsafe(st.size + 1);
    let length = 0;
    for (;;) {
      if (length === bytes.length) {
        if (length > maxBytes) break;
        bytes = Buffer.concat([bytes, Buffer.allocUnsafe(Math.min(bytes.length, maxBytes + 1 - length))]);
      }
      const n = readSync(fd, bytes, length, bytes.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > maxBytes) return fail(`is larger than the limit of ${maxBytes} bytes`);
    bytes = bytes.subarray(0, length);
  } catch (err) {
    return fail(`cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  } finally {
    closeSync(fd);
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return fail('is not valid UTF-8');
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const parsed = parseJsonc(text);
  if (parsed.ok) return { ok: true, value: parsed.value, sha256: createHash('sha256').update(bytes).digest('hex') };
  return { ok: false, missing: false, message: `${path}:${parsed.line}:${parsed.column}: ${parsed.problem}` };
}
