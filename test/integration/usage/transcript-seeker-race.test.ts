// The seeker looks for the path's next folder, then puts its watch on: a folder made in between (an
// agent's `mkdir -p` running on while the seeker arms) tells no watch of itself. Made here exactly
// there — inside fs.watch, before the watch exists — the seeker must still find its way down.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitUntil } from '../../helpers/wait-until.js';

/** Run once, at the next fs.watch call, before the watch is made. */
let beforeNextWatch: (() => void) | null = null;

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const watch = ((...args: Parameters<typeof fs.watch>) => {
    const hook = beforeNextWatch;
    beforeNextWatch = null;
    hook?.();
    return fs.watch(...args);
  }) as typeof fs.watch;
  return { ...fs, watch, default: { ...fs, watch } };
});

const { TranscriptSeeker } = await import('../../../src/usage/transcript-seeker.js');

describe('TranscriptSeeker and a folder made while it arms', () => {
  const dirs: string[] = [];
  const owned: Array<{ dispose(): void }> = [];
  afterEach(() => {
    for (const d of owned.splice(0)) d.dispose();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('finds the next folder made between its look and its watch, and goes on down to the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swb-usage-race-'));
    dirs.push(dir);
    const config = join(dir, '.claude');
    mkdirSync(config);
    // `projects` appears after the seeker saw it missing, before its watch on `.claude` is on.
    beforeNextWatch = () => mkdirSync(join(config, 'projects'));
    let looks = 0;
    const seeker = new TranscriptSeeker(join(config, 'projects', '*', 'sess.jsonl'), () => looks++);
    owned.push(seeker);
    expect(seeker.watchedFolder).toBe(join(config, 'projects'));
    mkdirSync(join(config, 'projects', 'slug'));
    await waitUntil(() => seeker.watchedFolder === join(config, 'projects', 'slug'), { what: 'the watch on the slug folder' });
    const before = looks;
    appendFileSync(join(config, 'projects', 'slug', 'sess.jsonl'), '{}\n');
    await waitUntil(() => looks > before, { what: 'a look for the file' });
  });
});
