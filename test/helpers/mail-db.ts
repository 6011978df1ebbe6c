// Reads a hub's mail.db from the outside, read-only, to check what was really stored.
import Database from 'better-sqlite3';
import type { RuntimePaths } from '../../src/hub/runtime-paths.js';
import { deferCleanup } from './cleanup.js';

export interface MailDbReader {
  /** Rows in `messages`, optionally only those from one sender. */
  countMessages(where?: { sender?: string; messageId?: string }): number;
  /** Stored messages (sender and text) in id order. */
  messages(): Array<{ id: number; sender: string; message_id: string; text: string }>;
  deliveriesTo(recipient: string): Array<{ message: number; state: number }>;
}

export function openMailDbReadOnly(paths: RuntimePaths): MailDbReader {
  const db = new Database(paths.dbFile, { readonly: true, fileMustExist: true });
  deferCleanup('mail.db reader', () => db.close());
  return {
    countMessages(where = {}) {
      const clauses: string[] = [];
      const args: string[] = [];
      if (where.sender !== undefined) {
        clauses.push('sender = ?');
        args.push(where.sender);
      }
      if (where.messageId !== undefined) {
        clauses.push('message_id = ?');
        args.push(where.messageId);
      }
      const sql = `SELECT count(*) AS n FROM messages${clauses.length > 0 ? ` WHERE ${clauses.join(' AND ')}` : ''}`;
      return (db.prepare(sql).get(...args) as { n: number }).n;
    },
    messages() {
      return db.prepare('SELECT id, sender, message_id, text FROM messages ORDER BY id').all() as Array<{
        id: number;
        sender: string;
        message_id: string;
        text: string;
      }>;
    },
    deliveriesTo(recipient) {
      return db.prepare('SELECT message, state FROM deliveries WHERE recipient = ? ORDER BY seq').all(recipient) as Array<{
        message: number;
        state: number;
      }>;
    },
  };
}
