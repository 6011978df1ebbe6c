// Schema versions, applied in order, all those due in one transaction (open-database.ts);
// `user_version` records progress.
// Never edit a shipped migration: add the next one.

export const MIGRATIONS: readonly string[] = [
  // 1: handles, messages, per-recipient deliveries (receipts), wake events.
  `
  CREATE TABLE handles (
    handle     TEXT PRIMARY KEY,
    role       TEXT NOT NULL,
    first_seen INTEGER NOT NULL,
    next_seq   INTEGER NOT NULL DEFAULT 1
  ) STRICT;

  CREATE TABLE messages (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    sender     TEXT NOT NULL,
    message_id TEXT NOT NULL,
    kind       TEXT NOT NULL,
    text       TEXT NOT NULL,
    reply_to   INTEGER,
    recipients TEXT NOT NULL,
    digest     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (sender, message_id)
  ) STRICT;

  CREATE TABLE deliveries (
    message      INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    recipient    TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    state        INTEGER NOT NULL,
    accepted_at  INTEGER NOT NULL,
    delivered_at INTEGER,
    woken_at     INTEGER,
    read_at      INTEGER,
    replied_at   INTEGER,
    expired_at   INTEGER,
    PRIMARY KEY (recipient, seq),
    UNIQUE (message, recipient)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE wake_events (
    id        INTEGER PRIMARY KEY,
    recipient TEXT NOT NULL,
    message   INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    at        INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX wake_events_by_message ON wake_events (message);
  `,
  // 2: when a handle was last used, so tokenless handles nobody uses any more can be forgotten.
  `
  ALTER TABLE handles ADD COLUMN last_seen INTEGER;
  UPDATE handles SET last_seen = first_seen;
  `,
  // 3: the reply budget between rows (src/store/reply-budget.ts) and each message's depth among rows.
  `
  CREATE TABLE pair_budgets (
    a       TEXT NOT NULL,
    b       TEXT NOT NULL,
    used    INTEGER NOT NULL DEFAULT 0,
    held_at INTEGER,
    PRIMARY KEY (a, b)
  ) STRICT, WITHOUT ROWID;
  ALTER TABLE messages ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;
  `,
  // 4: the workspace server's rows, relaunched when it starts again (src/store/row-records.ts); its
  // runs, so a restart can tell a crash from a reboot; mail parked for the operator's review when a
  // row came back as a fresh conversation that never saw it (seed protocol "recoverUnread"); how a
  // recipient was told of its mail (a typed wake line, or an agent's own hook).
  `
  CREATE TABLE row_records (
    name       TEXT PRIMARY KEY,
    spec       TEXT NOT NULL,
    wake       TEXT,
    session_id TEXT,
    position   INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    pid        INTEGER,
    pid_start  TEXT
  ) STRICT;
  CREATE TABLE server_runs (
    id         INTEGER PRIMARY KEY,
    pid        INTEGER NOT NULL,
    boot_id    TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    stopped_at INTEGER
  ) STRICT;
  ALTER TABLE deliveries ADD COLUMN parked_at INTEGER;
  ALTER TABLE deliveries ADD COLUMN woken_by TEXT;
  ALTER TABLE wake_events ADD COLUMN how TEXT NOT NULL DEFAULT 'typed';
  `,
  // 5: mail across machines (src/federation/): what waits to be published to NATS, in order (mail
  // by message, receipts as their body); the last id published per destination node, so each
  // envelope names its predecessor and a receiver can keep the order; the last envelope applied
  // per origin store; this store's own random epoch. Receipts of mail that came from another node
  // are queued by triggers in the same transaction as the state change, so none is lost or forgotten.
  `
  CREATE TABLE outbox (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    node       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    message    INTEGER REFERENCES messages(id) ON DELETE CASCADE,
    body       TEXT,
    created_at INTEGER NOT NULL
  ) STRICT;
  -- What the stream acknowledged leaves per node (DELETE ... WHERE node = ? AND id <= ?), also when
  -- a long partition left a large outbox behind.
  CREATE INDEX outbox_by_node ON outbox (node, id);
  CREATE TABLE link_out (node TEXT PRIMARY KEY, last_id INTEGER NOT NULL) STRICT;
  CREATE TABLE link_in (
    origin   TEXT NOT NULL,
    epoch    TEXT NOT NULL,
    last_seq INTEGER NOT NULL,
    PRIMARY KEY (origin, epoch)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT, WITHOUT ROWID;
  INSERT INTO meta (key, value) VALUES ('epoch', lower(hex(randomblob(8))));
  CREATE TRIGGER remote_receipt_on_change AFTER UPDATE OF state, woken_at ON deliveries
    WHEN (NEW.state <> OLD.state OR (NEW.woken_at IS NOT NULL AND OLD.woken_at IS NULL))
      AND instr((SELECT sender FROM messages WHERE id = NEW.message), '@') > 0
  BEGIN
    INSERT INTO outbox (node, kind, message, body, created_at)
    SELECT substr(m.sender, instr(m.sender, '@') + 1), 'receipt', NULL,
           json_object('sender', substr(m.sender, 1, instr(m.sender, '@') - 1), 'messageId', m.message_id,
                       'to', NEW.recipient, 'state', NEW.state, 'woken', NEW.woken_at IS NOT NULL, 'how', NEW.woken_by,
                       'at', max(NEW.accepted_at, coalesce(NEW.delivered_at, 0), coalesce(NEW.woken_at, 0),
                                 coalesce(NEW.read_at, 0), coalesce(NEW.replied_at, 0), coalesce(NEW.expired_at, 0))),
           CAST(unixepoch('subsec') * 1000 AS INTEGER)
    FROM messages m WHERE m.id = NEW.message;
  END;
  CREATE TRIGGER remote_receipt_on_insert AFTER INSERT ON deliveries
    WHEN NEW.state > 0 AND instr((SELECT sender FROM messages WHERE id = NEW.message), '@') > 0
  BEGIN
    INSERT INTO outbox (node, kind, message, body, created_at)
    SELECT substr(m.sender, instr(m.sender, '@') + 1), 'receipt', NULL,
           json_object('sender', substr(m.sender, 1, instr(m.sender, '@') - 1), 'messageId', m.message_id,
                       'to', NEW.recipient, 'state', NEW.state, 'woken', 0, 'at', coalesce(NEW.delivered_at, NEW.accepted_at)),
           CAST(unixepoch('subsec') * 1000 AS INTEGER)
    FROM messages m WHERE m.id = NEW.message;
  END;
  `,
  // 6: reservations between agents (issue #35, src/store/resource-store.ts): policies per resource
  // (capacity, controller, default wait, epoch), tickets with the resources they claim and their place
  // in each queue, the launch ledger of `swb run` (pid + kernel start time + process group: the
  // evidence a ticket may be released on), and a bounded journal of what happened.
  `
  CREATE TABLE resource_policies (
    name       TEXT PRIMARY KEY,
    capacity   INTEGER NOT NULL DEFAULT 1,
    controller TEXT,
    wait_ms    INTEGER,
    epoch      INTEGER NOT NULL DEFAULT 1,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE resource_tickets (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    holder       TEXT NOT NULL,
    state        TEXT NOT NULL,
    reason       TEXT,
    requested_at INTEGER NOT NULL,
    deadline     INTEGER,
    granted_at   INTEGER,
    granted_by   TEXT,
    told_at      INTEGER,
    ended_at     INTEGER,
    why          TEXT
  ) STRICT;
  CREATE INDEX resource_tickets_open ON resource_tickets (state) WHERE state IN ('queued', 'granted', 'held', 'uncertain');
  CREATE TABLE resource_claims (
    ticket   INTEGER NOT NULL REFERENCES resource_tickets(id) ON DELETE CASCADE,
    resource TEXT NOT NULL,
    position INTEGER NOT NULL,
    epoch    INTEGER,
    PRIMARY KEY (ticket, resource)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX resource_claims_by_resource ON resource_claims (resource, position);
  CREATE TABLE resource_launches (
    ticket      INTEGER PRIMARY KEY REFERENCES resource_tickets(id) ON DELETE CASCADE,
    pid         INTEGER NOT NULL,
    start_time  TEXT NOT NULL,
    pgid        INTEGER NOT NULL,
    command     TEXT NOT NULL,
    holder      TEXT NOT NULL,
    launched_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE resource_events (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    at        INTEGER NOT NULL,
    kind      TEXT NOT NULL,
    ticket    INTEGER,
    resources TEXT NOT NULL,
    holder    TEXT,
    actor     TEXT,
    detail    TEXT
  ) STRICT;
  `,
  // 7: usage per agent (issue #38, src/usage/usage-store.ts): per (row, transcript file) the offset read,
  // the file's inode and the parser's state (an open response, a cumulative counter), committed in the
  // same transaction as the totals they produced, so a restart never counts a turn twice or loses one;
  // totals per row, UTC day, model and source (the conversation, or a subagent's file), with the tokens
  // of long-prompt responses apart (their own prices); each row's newest context fill and plan windows.
  `
  CREATE TABLE usage_files (
    row        TEXT NOT NULL,
    path       TEXT NOT NULL,
    offset     INTEGER NOT NULL,
    inode      INTEGER NOT NULL,
    parser     TEXT,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (row, path)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE usage_totals (
    row              TEXT NOT NULL,
    day              TEXT NOT NULL,
    model            TEXT NOT NULL,
    source           TEXT NOT NULL,
    turns            INTEGER NOT NULL DEFAULT 0,
    input            INTEGER NOT NULL DEFAULT 0,
    cache_read       INTEGER NOT NULL DEFAULT 0,
    cache_write      INTEGER NOT NULL DEFAULT 0,
    output           INTEGER NOT NULL DEFAULT 0,
    reasoning        INTEGER NOT NULL DEFAULT 0,
    long_input       INTEGER NOT NULL DEFAULT 0,
    long_cache_read  INTEGER NOT NULL DEFAULT 0,
    long_cache_write INTEGER NOT NULL DEFAULT 0,
    long_output      INTEGER NOT NULL DEFAULT 0,
    long_reasoning   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (row, day, model, source)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX usage_totals_by_day ON usage_totals (day);
  CREATE TABLE usage_latest (
    row            TEXT PRIMARY KEY,
    model          TEXT,
    context_tokens INTEGER,
    context_window INTEGER,
    limits         TEXT,
    at             INTEGER NOT NULL
  ) STRICT;
  `,
  // 8: usage budgets across a restart (issue #38): each scope's last level ("row:<name>" or "workspace")
  // and the rows whose automatic wakes a budget stopped, so a new day's reset turns exactly those back on.
  `
  CREATE TABLE usage_budget_levels (
    scope      TEXT PRIMARY KEY,
    level      TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE usage_budget_stops (
    row        TEXT PRIMARY KEY,
    stopped_at INTEGER NOT NULL
  ) STRICT;
  `,
  // 9 (issue #33, mail at the floor): schema 5's insert trigger ran for every delivery row an accept
  // wrote, local mail included, to find that its sender was on no other node (~1 µs a row). The accept
  // now queues that receipt itself, in the same transaction, only for mail from another node
  // delivered as it is stored (MailStore's queueDeliveredReceipt); receipts already queued stay as they
  // are. The update trigger stays: receipts of state changes come from many statements. The column
  // that held each message's sha256 digest is now `retry_key`: a new row keeps there the recipients
  // as asked, as JSON, and a retried id is compared with the row itself (src/store/same-message.ts);
  // older rows keep their sha256 in it. An older swb refuses a store at this version (it would queue
  // no delivered receipt on insert).
  `
  DROP TRIGGER IF EXISTS remote_receipt_on_insert;
  ALTER TABLE messages RENAME COLUMN digest TO retry_key;
  `,
  // 10 (issue #33, mail at the floor): messages.id without AUTOINCREMENT. AUTOINCREMENT kept the
  // highest id ever given in sqlite_sequence, a page every accept rewrote (one WAL frame in five of a
  // commit). A new row now takes max(id) + 1; what AUTOINCREMENT was kept for (a purged newest id
  // never given again: a reply_to or a receipt would point at the wrong mail) is meta's
  // 'messages_high_water', written only by a purge that deleted the newest messages and honoured
  // by the accept (MailStore). sqlite_sequence's mark is carried over when it is above the rows.
  // SQLite's table rebuild: the new table, the rows with their ids, the old table dropped (open-
  // database.ts runs migrations with foreign keys off, so the drop deletes no delivery, wake or
  // outbox row) and the new one renamed; the update trigger reads messages, so it is made again
  // around the rename. The (sender, message_id) unique index comes with the table, as before.
  `
  INSERT INTO meta (key, value)
    SELECT 'messages_high_water', CAST(seq AS TEXT) FROM sqlite_sequence
    WHERE name = 'messages' AND seq > (SELECT coalesce(max(id), 0) FROM messages);
  DROP TRIGGER remote_receipt_on_change;
  CREATE TABLE messages_rebuilt (
    id         INTEGER PRIMARY KEY,
    sender     TEXT NOT NULL,
    message_id TEXT NOT NULL,
    kind       TEXT NOT NULL,
    text       TEXT NOT NULL,
    reply_to   INTEGER,
    recipients TEXT NOT NULL,
    retry_key  TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    depth      INTEGER NOT NULL DEFAULT 0,
    UNIQUE (sender, message_id)
  ) STRICT;
  INSERT INTO messages_rebuilt (id, sender, message_id, kind, text, reply_to, recipients, retry_key, created_at, depth)
    SELECT id, sender, message_id, kind, text, reply_to, recipients, retry_key, created_at, depth FROM messages ORDER BY id;
  DROP TABLE messages;
  ALTER TABLE messages_rebuilt RENAME TO messages;
  CREATE TRIGGER remote_receipt_on_change AFTER UPDATE OF state, woken_at ON deliveries
    WHEN (NEW.state <> OLD.state OR (NEW.woken_at IS NOT NULL AND OLD.woken_at IS NULL))
      AND instr((SELECT sender FROM messages WHERE id = NEW.message), '@') > 0
  BEGIN
    INSERT INTO outbox (node, kind, message, body, created_at)
    SELECT substr(m.sender, instr(m.sender, '@') + 1), 'receipt', NULL,
           json_object('sender', substr(m.sender, 1, instr(m.sender, '@') - 1), 'messageId', m.message_id,
                       'to', NEW.recipient, 'state', NEW.state, 'woken', NEW.woken_at IS NOT NULL, 'how', NEW.woken_by,
                       'at', max(NEW.accepted_at, coalesce(NEW.delivered_at, 0), coalesce(NEW.woken_at, 0),
                                 coalesce(NEW.read_at, 0), coalesce(NEW.replied_at, 0), coalesce(NEW.expired_at, 0))),
           CAST(unixepoch('subsec') * 1000 AS INTEGER)
    FROM messages m WHERE m.id = NEW.message;
  END;
  `,
];
