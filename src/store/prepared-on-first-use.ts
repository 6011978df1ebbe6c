// A store's statements, each prepared the first time it is used rather than when the store is made
// (issue #33). mail.db's stores name some 100 statements between them; a server's cold start runs a
// handful of them before its first frame (the caches' reads, a row's handle and record), and each
// prepare parses its SQL against the schema: 2-4 ms of the server's start for statements that
// most runs use minutes later, or never. Preparing later changes nothing else: SQLite prepares
// the same text the same way at any time (and again by itself after a schema change), and a
// statement that could not be prepared is a bug the store's tests meet on their first use of it.
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './open-database.js';

/** A statement's SQL with the row type it returns (`T`): what `preparedOnFirstUse` prepares. */
export interface StatementSql<T = unknown> {
  readonly sql: string;
  /** Carries `T` to the prepared statement's type; never set. */
  readonly rows?: T;
}

/** `text` as a statement returning rows of type `T`. */
export function sql<T = unknown>(text: string): StatementSql<T> {
  return { sql: text };
}

export type PreparedStatements<S extends Record<string, StatementSql<unknown>>> = {
  readonly [K in keyof S]: S[K] extends StatementSql<infer T> ? Statement<unknown[], T> : never;
};

/**
 * The statements of `statements`, each prepared on `db` at its first use and kept. Each is a getter
 * of its own on one object of fixed shape, so a call site that always reads the same statement
 * stays monomorphic (the store's hot paths read them per request).
 */
export function preparedOnFirstUse<S extends Record<string, StatementSql<unknown>>>(db: SqliteDatabase, statements: S): PreparedStatements<S> {
  const prepared = {};
  for (const [name, { sql: text }] of Object.entries(statements)) {
    let statement: Statement | undefined;
    Object.defineProperty(prepared, name, { enumerable: true, get: () => (statement ??= db.prepare(text)) });
  }
  return prepared as PreparedStatements<S>;
}
