// The gemini profile against the REAL Gemini CLI, run offline with GOOGLE_GEMINI_BASE_URL pointing at
// the local Gemini API stub (test/support/model-api/gemini-stub.mjs).
// Skipped unless the CLI is installed into the ignored .cache/ (see docs/AGENTS-REAL.md):
//   npm install --prefix .cache/agents @google/gemini-cli@0.61.0
// With SWB_CAPTURE=1 it also rewrites test/fixtures/screens/gemini/real-*.txt from what it saw.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectState } from '../../src/agents/detect-state.js';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { readPromptInput } from '../../src/agents/prompt-input.js';
import type { ScreenSnapshot } from '../../src/rows/screen-snapshot.js';
import { startGeminiStub, type GeminiStub } from '../support/model-api/gemini-stub.mjs';
import { runHeadless, type HeadlessRun } from '../helpers/headless-screen.js';
import { AGENTS_DIR, cliInstalled, pinnedVersion } from './agent-cli.js';
import { bottomHas, has, saveFixture, wakeLiveAgent } from '../helpers/real-agent-harness.js';

const GEMINI_JS = process.env.SWB_GEMINI_JS ?? join(AGENTS_DIR, '@google/gemini-cli/bundle/gemini.js');
const VERSION = pinnedVersion('@google/gemini-cli');
const gemini = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('gemini')!;
const pause = (ms: number) => new Promise((res) => setTimeout(res, ms));
const inputIs = (text: string) => (s: ScreenSnapshot) => readPromptInput(s, gemini).text === text;

describe.skipIf(!cliInstalled(GEMINI_JS))('real Gemini CLI', () => {
  let stub: GeminiStub;
  let dir: string;
  const runs: HeadlessRun[] = [];
  const save = (name: string, s: ScreenSnapshot, expect: Record<string, string>): void =>
    saveFixture('gemini', name, s, { source: `captured from Gemini CLI ${VERSION} (node-pty + @xterm/headless, offline API stub)`, ...expect }, dir, '/tmp/swb-gemini-real');

  beforeAll(async () => {
    stub = await startGeminiStub({
      script: {
        turns: [
          { match: '^slow', delayMs: 6000, parts: [{ text: 'Slow answer done.' }] },
          {
            match: '^tool',
            parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'touch created-by-stub.txt', description: 'Create a marker file' } } }],
            afterTool: 'Created the file.',
          },
          { match: 'You have new mail', delayMs: 1500, parts: [{ text: 'Reading my inbox now.' }] },
        ],
        default: { parts: [{ text: 'Hello from the stub.' }] },
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'swb-gemini-real-'));
  });

  afterAll(async () => {
    for (const r of runs) r.kill();
    await Promise.all(runs.map((r) => r.gone())); // kill()'s SIGKILL of a lingering group included
    await stub?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  function launch(name: string, trusted: boolean): HeadlessRun {
    const home = join(dir, `${name}-home`);
    const project = join(dir, `${name}-project`);
    mkdirSync(join(home, '.gemini'), { recursive: true });
    mkdirSync(project, { recursive: true });
    execFileSync('git', ['init', '-q', project]);
    // Auth by API key (any value: the stub does not check it).
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    if (trusted) writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [project]: 'TRUST_FOLDER' }));
    const run = runHeadless(process.execPath, [GEMINI_JS], {
      cols: 100,
      rows: 30,
      cwd: project,
      env: {
        PATH: `${join(process.execPath, '..')}:/usr/bin:/bin`,
        HOME: home,
        TERM: 'xterm-256color',
        GEMINI_API_KEY: 'stub-key',
        GOOGLE_GEMINI_BASE_URL: stub.url,
      },
    });
    runs.push(run);
    return run;
  }

  it('first start in a folder: the trust question reads as waiting', async () => {
    const run = launch('first', false);
    const trust = await run.waitFor(has('Do you trust the files in this folder?'), 60_000, 'trust question');
    expect(detectState(trust, gemini)).toMatchObject({ state: 'waiting', ruleId: 'trust_folder' });
    expect(readPromptInput(trust, gemini).dialogOpen).toBe(true);
    save('real-trust-dialog', trust, { expect: 'waiting', 'expect-rule': 'trust_folder', 'expect-dialog': 'true' });
    run.kill();
  }, 90_000);

  it('idle, draft, busy, confirmation and a wake, live', async () => {
    const run = launch('main', true);
    const idle = await run.waitFor((s) => has('Type your message')(s) && detectState(s, gemini).state === 'idle', 60_000, 'idle prompt');
    expect(detectState(idle, gemini).ruleId).toBe('prompt_box');
    expect(readPromptInput(idle, gemini)).toMatchObject({ found: true, isEmpty: true, dialogOpen: false, cursorOnInput: true });
    save('real-idle', idle, { expect: 'idle', 'expect-rule': 'prompt_box', 'expect-input': 'empty', 'expect-dialog': 'false', 'expect-cursor-on-input': 'true' });

    run.write('slow question');
    const draft = await run.waitFor(inputIs('slow question'), 10_000, 'draft');
    expect(readPromptInput(draft, gemini)).toMatchObject({ found: true, isEmpty: false, cursorOnInput: true });
    save('real-draft', draft, { expect: 'idle', 'expect-input': 'draft', 'expect-cursor-on-input': 'true' });

    await pause(400); // gemini takes an Enter right after fast typing as part of a paste
    run.write('\r');
    const busy = await run.waitFor(has('esc to cancel'), 10_000, 'busy');
    expect(detectState(busy, gemini)).toMatchObject({ state: 'busy' });
    save('real-busy', busy, { expect: 'busy', 'expect-rule': detectState(busy, gemini).ruleId ?? '', 'expect-input': 'empty' });

    const after = await run.waitFor(
      (s) => has('Slow answer done.')(s) && !has('esc to cancel')(s) && detectState(s, gemini).state === 'idle',
      20_000,
      'turn end',
    );
    save('real-after-turn', after, { expect: 'idle', 'expect-rule': 'prompt_box', 'expect-input': 'empty' });

    run.write('tool please');
    await run.waitFor(inputIs('tool please'), 10_000, 'tool draft');
    await pause(400);
    run.write('\r');
    const confirm = await run.waitFor((s) => has('Allow execution')(s) && bottomHas('No, suggest changes', 4)(s), 20_000, 'confirmation');
    expect(detectState(confirm, gemini).state).toBe('waiting');
    expect(readPromptInput(confirm, gemini).dialogOpen).toBe(true);
    save('real-confirmation', confirm, { expect: 'waiting', 'expect-rule': detectState(confirm, gemini).ruleId ?? '', 'expect-dialog': 'true' });
    run.write('\x1b'); // esc: suggest changes, i.e. do not run it
    await run.waitFor((s) => !has('Allow execution')(s) && detectState(s, gemini).state === 'idle', 20_000, 'confirmation gone');

    expect(await wakeLiveAgent(run, gemini)).toBe(1);
    await run.waitFor(has('Reading my inbox now.'), 20_000, 'wake turn');
    expect(stub.requests.some((r) => !r.side && r.lastUser === gemini.wakeLine)).toBe(true);
  }, 180_000);
});
