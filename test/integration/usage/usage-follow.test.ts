// Usage tracking end to end below the server: a row's tracker follows a real transcript through
// fs.watch while it grows, is truncated and is rotated, commits to a real mail.db, and a restart (a new
// store and tracker on the same database) resumes from the committed offsets: every turn counted
// exactly once. Also: a subagent file appearing beside the conversation is found and attributed; and
// during a turn the conversation's interrupt line (an Esc) is told promptly, a subagent's never.
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../src/store/open-database.js';
import { UsageStore } from '../../../src/usage/usage-store.js';
import { loadPriceFiles, mergePrices } from '../../../src/usage/price-table.js';
import { RowUsageTracker } from '../../../src/usage/row-usage-tracker.js';
import { waitUntil } from '../../helpers/wait-until.js';

const prices = mergePrices(loadPriceFiles());
/** Claude Code's line for an Esc once the answer has begun (bench/states/claude-transcript-probe.mjs). */
const interruptLine = `${JSON.stringify({ isSidechain: false, type: 'user', message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] }, timestamp: '2026-12-05T10:00:01.000Z' })}\n`;
let seq = 0;
/** One Claude response written as two lines (text, then tool_use), as Claude Code writes it. */
const response = (output: number, model = 'claude-sonnet-4-5') => {
  const id = `msg_${seq++}`;
  const l = (kind: string) =>
    `${JSON.stringify({ type: 'assistant', timestamp: '2026-12-05T10:00:00.000Z', requestId: `req_${id}`, message: { id, model, content: [{ type: kind }], usage: { input_tokens: 10, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: output } } })}\n`;
  return l('text') + l('tool_use');
};

describe('RowUsageTracker with the usage store', () => {
  let dir: string;
  let db: SqliteDatabase;
  let file: string;
  const trackers: RowUsageTracker[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'swb-usage-int-'));
    mkdirSync(join(dir, 'projects', 'slug'), { recursive: true });
    file = join(dir, 'projects', 'slug', 'sess.jsonl');
    db = openDatabase(join(dir, 'mail.db'));
  });

  afterEach(() => {
    for (const t of trackers.splice(0)) t.dispose();
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function tracker(database = db): RowUsageTracker {
    const t = new RowUsageTracker({ row: 'alpha', format: 'claude', locate: () => file, ledger: new UsageStore(database), prices });
    trackers.push(t);
    return t;
  }

  it('grows, is truncated and rotated under a watch; a restart from the store counts each turn exactly once', async () => {
    writeFileSync(file, response(1));
    const t = tracker();
    t.look(); // finds the file and starts watching its folder
    expect(t.snapshot().turns).toBe(1);

    appendFileSync(file, response(2) + response(3));
    await waitUntil(() => t.snapshot().turns === 3, { what: 'the watch to read the growth' });

    // Truncated and written again (what is there now is new).
    truncateSync(file, 0);
    appendFileSync(file, response(4));
    await waitUntil(() => t.snapshot().turns === 4, { what: 'the truncated file read from its start' });

    // Rotated: the old file gets a last response, moves away, a new one takes its name.
    appendFileSync(file, response(5));
    renameSync(file, `${file}.1`);
    writeFileSync(file, response(6));
    t.look();
    await waitUntil(() => t.snapshot().turns === 6, { what: 'the old file read out, then the new one' });
    expect(t.snapshot().tokens.output).toBe(1 + 2 + 3 + 4 + 5 + 6);

    // Restart: the store gives totals and offsets back; nothing is read twice.
    t.dispose();
    db.close();
    db = openDatabase(join(dir, 'mail.db'));
    const again = tracker();
    again.look();
    expect(again.snapshot().turns).toBe(6);
    appendFileSync(file, response(7));
    again.look();
    const s = again.snapshot();
    expect(s.turns).toBe(7);
    expect(s.tokens).toEqual({ input: 70, cacheWrite: 700, cacheRead: 7000, output: 28, reasoning: 0 });
    expect(s.cost).toBeCloseTo((70 * 3 + 700 * 3.75 + 7000 * 0.3 + 28 * 15) / 1e6, 12);
    expect(s.context).toEqual({ tokens: 1110, window: 200_000, fraction: 1110 / 200_000 });
    expect(new UsageStore(db).totals({ row: 'alpha' })).toEqual([
      { row: 'alpha', day: '2026-12-05', model: 'claude-sonnet-4-5', source: 'main', turns: 7, tokens: s.tokens, longTokens: { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 } },
    ]);
  });

  it('a restart in the middle of a response (its second line not yet written) counts it once', () => {
    const both = response(9);
    const first = both.slice(0, both.indexOf('\n') + 1);
    writeFileSync(file, first);
    const t = tracker();
    t.look();
    expect(t.snapshot().tokens.output).toBe(9);
    t.dispose();
    appendFileSync(file, both.slice(first.length));
    const again = tracker();
    again.look();
    expect(again.snapshot()).toMatchObject({ turns: 1, tokens: { output: 9 } });
  });

  it('a subagent file that appears beside the conversation is followed and attributed; an unknown model has no price', async () => {
    writeFileSync(file, response(1));
    const t = tracker();
    t.look();
    const sub = join(dir, 'projects', 'slug', 'sess', 'subagents');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'agent-1.jsonl'), response(5, 'claude-new-model'));
    t.look(); // the row went quiet
    await waitUntil(() => t.snapshot().turns === 2, { what: 'the subagent file' });
    const s = t.snapshot();
    expect(s.unpriced).toEqual(['claude-new-model']);
    expect(s.byModel.find((m) => m.model === 'claude-new-model')).toMatchObject({ cost: null, tokens: { output: 5 } });
    expect(s.context?.tokens).toBe(1110); // the conversation's, not the subagent's
    expect(new UsageStore(db).totals({ row: 'alpha' }).map((r) => r.source).sort()).toEqual(['agent-1', 'main']);
  });

  it('fires one change per committed slice', () => {
    writeFileSync(file, response(1) + response(2));
    const t = tracker();
    const seen: number[] = [];
    t.onChange((u) => seen.push(u.turns));
    t.look();
    t.look();
    expect(seen).toEqual([2]);
  });

  it("during a turn the conversation's interrupt line is told through the watch well before the idle settle (500 ms); a subagent's is not told", async () => {
    writeFileSync(file, response(1));
    const sub = join(dir, 'projects', 'slug', 'sess', 'subagents');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'agent-1.jsonl'), response(2));
    const t = tracker();
    const told: number[] = [];
    t.onInterrupt((i) => told.push(i.at));
    t.look();
    t.duringTurn(true);
    appendFileSync(join(sub, 'agent-1.jsonl'), interruptLine);
    t.look();
    expect(told).toEqual([]);
    const from = performance.now();
    appendFileSync(file, interruptLine);
    await waitUntil(() => told.length === 1, { what: 'the interrupt line, through the watch' });
    // The watch's look waits 30 ms in a turn; 500 ms (the idle settle) would never be under this.
    expect(performance.now() - from).toBeLessThan(450);
    expect(told).toEqual([Date.parse('2026-12-05T10:00:01.000Z')]);
    t.look();
    expect(told).toHaveLength(1);
  });
});
