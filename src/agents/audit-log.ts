// The audit log of every byte the multiplexer itself types into a row: one JSON object per line,
// appended synchronously (an entry is on disk before the bytes go to the pty), file mode 0600.
import { appendFileSync, chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AuditEntry } from './wake-controller.js';

export interface AuditLog {
  append(entry: AuditEntry): void;
}

export function openAuditLog(path: string): AuditLog {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let first = true;
  return {
    append(entry) {
      const line = JSON.stringify({ ...entry, at: new Date(entry.at).toISOString() });
      appendFileSync(path, `${line}\n`, { mode: 0o600 });
      if (first) {
        chmodSync(path, 0o600);
        first = false;
      }
    },
  };
}

/** One human line for the operator's audit view; control bytes are shown escaped (`\r`, `\u001b`). */
export function formatAuditEntry(e: AuditEntry): string {
  const bytes = JSON.stringify(e.bytes);
  return `${new Date(e.at).toISOString()} ${e.row} ${e.purpose}#${e.attempt} ${bytes} (mail ${e.messageIds.join(', ')})`;
}
