// Where every byte the multiplexer types into a row is recorded: the NDJSON audit log on disk (0600,
// written before the bytes go to the pty) and a bounded in-memory ring for the dashboard's audit view.
import { formatAuditEntry, type AuditLog } from '../agents/audit-log.js';
import type { AuditEntry } from '../agents/wake-controller.js';
import { sanitize } from '../text/sanitize.js';

export const DEFAULT_AUDIT_RING = 200;

export class AgentAuditTrail {
  private readonly ring: AuditEntry[] = [];

  constructor(
    private readonly log: AuditLog | null,
    private readonly capacity = DEFAULT_AUDIT_RING,
  ) {}

  /** Appends to the file first (a failure there propagates: the write must not happen unrecorded). */
  append(entry: AuditEntry): void {
    this.log?.append(entry);
    this.ring.push(entry);
    if (this.ring.length > this.capacity) this.ring.splice(0, this.ring.length - this.capacity);
  }

  get size(): number {
    return this.ring.length;
  }

  /** The newest `n` entries, oldest first, one sanitized line each. */
  lines(n = this.capacity): string[] {
    return this.ring.slice(-Math.max(0, n)).map((e) => sanitize(formatAuditEntry(e), { singleLine: true, maxChars: 400 }));
  }
}
