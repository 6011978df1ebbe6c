// A conversation file that appears late, in folders that appear with it: the seeker's one watch starts
// on the agent's config folder and moves deeper as `projects` and the slug folder appear, and the look it
// asks for finds the file and counts its turn — no timer polling for it.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../src/store/open-database.js';
import { UsageStore } from '../../../src/usage/usage-store.js';
import { loadPriceFiles, mergePrices } from '../../../src/usage/price-table.js';
import { RowUsageTracker } from '../../../src/usage/row-usage-tracker.js';
import { TranscriptSeeker } from '../../../src/usage/transcript-seeker.js';
import { transcriptFiles } from '../../../src/agents/session-transcript.js';
import { waitUntil } from '../../helpers/wait-until.js';

const prices = mergePrices(loadPriceFiles());
const line = `${JSON.stringify({ type: 'assistant', timestamp: '2026-12-05T10:00:00.000Z', requestId: 'req_1', message: { id: 'msg_1', model: 'claude-sonnet-4-5', content: [{ type: 'text' }], usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 } } })}\n`;

describe('TranscriptSeeker', () => {
  let dir: string;
  let db: SqliteDatabase;
  const owned: Array<{ dispose(): void }> = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'swb-usage-seek-'));
    db = openDatabase(join(dir, 'mail.db'));
  });

  afterEach(() => {
    for (const d of owned.splice(0)) d.dispose();
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('follows the folders down as they appear and the look it asks for counts the late file', async () => {
    const config = join(dir, '.claude');
    mkdirSync(config);
    const pattern = join(config, 'projects', '*', 'sess-1.jsonl');
    const tracker = new RowUsageTracker({ row: 'a', format: 'claude', ledger: new UsageStore(db), prices, locate: () => transcriptFiles(pattern)[0] ?? null });
    owned.push(tracker);
    let looks = 0;
    const seeker = new TranscriptSeeker(pattern, () => {
      looks++;
      tracker.look();
    });
    owned.push(seeker);
    expect(seeker.watchedFolder).toBe(config);

    mkdirSync(join(config, 'projects'));
    await waitUntil(() => seeker.watchedFolder === join(config, 'projects'));
    mkdirSync(join(config, 'projects', 'other-slug'));
    await waitUntil(() => seeker.watchedFolder === join(config, 'projects', 'other-slug'));
    appendFileSync(join(config, 'projects', 'other-slug', 'sess-1.jsonl'), line);
    await waitUntil(() => tracker.snapshot().turns === 1);
    expect(tracker.snapshot().tokens.output).toBe(5);
    expect(looks).toBeGreaterThan(0);

    seeker.dispose();
    expect(seeker.watching).toBe(false);
  });

  it('a fresh HOME: the config folder made with its sub-folders at once (mkdir -p) is entered to the end', async () => {
    const pattern = join(dir, '.claude', 'projects', '*', 'sess-2.jsonl');
    let looks = 0;
    const seeker = new TranscriptSeeker(pattern, () => looks++);
    owned.push(seeker);
    // The config folder is missing: its parent is watched, for that name only.
    expect(seeker.watchedFolder).toBe(dir);
    mkdirSync(join(dir, '.claude', 'projects', 'slug'), { recursive: true });
    await waitUntil(() => seeker.watchedFolder === join(dir, '.claude', 'projects', 'slug'));
    const before = looks;
    appendFileSync(join(dir, '.claude', 'projects', 'slug', 'sess-2.jsonl'), line);
    await waitUntil(() => looks > before);
  });

  it('ignores what is not on the path, and watches nothing above the config folder', async () => {
    const pattern = join(dir, '.gemini', 'tmp', '*', 'chats', 'session-*-abcd1234.json*');
    const missing = new TranscriptSeeker(join(dir, 'no-home', '.gemini', 'tmp', '*', 'chats', 'session-*-abcd1234.json*'), () => {});
    owned.push(missing);
    expect(missing.watching).toBe(false);

    mkdirSync(join(dir, '.gemini', 'tmp', 'proj', 'chats'), { recursive: true });
    let looks = 0;
    const seeker = new TranscriptSeeker(pattern, () => looks++);
    owned.push(seeker);
    // `tmp/*` already holds a folder: not guessed at, the watch stays on `tmp` for a new one.
    expect(seeker.watchedFolder).toBe(join(dir, '.gemini', 'tmp'));
    appendFileSync(join(dir, '.gemini', 'tmp', 'unrelated.txt'), 'x');
    mkdirSync(join(dir, '.gemini', 'tmp', 'proj2', 'chats'), { recursive: true });
    await waitUntil(() => seeker.watchedFolder === join(dir, '.gemini', 'tmp', 'proj2', 'chats'));
    appendFileSync(join(dir, '.gemini', 'tmp', 'proj2', 'chats', 'other.json'), '{}');
    appendFileSync(join(dir, '.gemini', 'tmp', 'proj2', 'chats', 'session-2026-abcd1234.json'), '{}');
    await waitUntil(() => looks >= 2);
  });
  it("the owner's look before the watch's event (the row went quiet as mkdir -p ran): the watch moves with it", async () => {
    const pattern = join(dir, '.claude', 'projects', '*', 'sess-3.jsonl');
    let looks = 0;
    const seeker = new TranscriptSeeker(pattern, () => looks++);
    owned.push(seeker);
    expect(seeker.watchedFolder).toBe(dir);
    // The folders appear and the owner looks (arm) in the same turn, before the watch's event is read.
    mkdirSync(join(dir, '.claude', 'projects', 'slug'), { recursive: true });
    seeker.arm();
    // The watch is where the seeker stands, never left behind on a folder above it.
    expect(seeker.watchedFolder).toBe(join(dir, '.claude', 'projects', 'slug'));
    await new Promise((r) => setImmediate(r));
    const before = looks;
    appendFileSync(join(dir, '.claude', 'projects', 'slug', 'sess-3.jsonl'), line);
    await waitUntil(() => looks > before, { what: 'the late file to be seen' });
  });
});
