// A separate process that takes SQLite's write lock on a hub's mail.db (BEGIN EXCLUSIVE) and holds
// it until its stdin gets a line or closes, as another program touching the file might.
// Prints "locked" once it holds the lock, "released" after ROLLBACK. Usage: node hold-db-lock.mjs FILE
import Database from 'better-sqlite3';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: hold-db-lock.mjs FILE\n');
  process.exit(2);
}
const db = new Database(file, { fileMustExist: true, timeout: 10_000 });
db.exec('BEGIN EXCLUSIVE');
process.stdout.write('locked\n');
let done = false;
const release = () => {
  if (done) return;
  done = true;
  db.exec('ROLLBACK');
  db.close();
  process.stdout.write('released\n');
  process.exit(0);
};
process.stdin.on('data', release);
process.stdin.on('end', release);
