import { describe, expect, it } from 'vitest';
import { detectState } from '../../../src/agents/detect-state.js';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import { readPromptInput } from '../../../src/agents/prompt-input.js';
import { listScreenFixtures, loadScreenFixture } from '../../helpers/screen-fixture.js';

const profiles = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles;

describe('per-agent screens', () => {
  for (const [agent, file] of listScreenFixtures()) {
    it(`${agent}/${file} reads as its header says`, () => {
      const fx = loadScreenFixture(agent, file);
      const profile = profiles.get(agent);
      expect(profile, `no profile for ${agent}`).toBeDefined();
      const d = detectState(fx.snapshot, profile!);
      const input = readPromptInput(fx.snapshot, profile!);
      const e = fx.expect;
      if (e.expect) expect(d.state, `rule ${d.ruleId}: ${d.evidence}`).toBe(e.expect);
      if (e['expect-rule']) expect(d.ruleId).toBe(e['expect-rule']);
      if (e['expect-input'] === 'none') expect(input.found).toBe(false);
      if (e['expect-input'] === 'empty') expect({ found: input.found, isEmpty: input.isEmpty, text: input.text }).toMatchObject({ found: true, isEmpty: true });
      if (e['expect-input'] === 'draft') expect({ found: input.found, isEmpty: input.isEmpty, text: input.text }).toMatchObject({ found: true, isEmpty: false });
      if (e['expect-dialog']) expect(input.dialogOpen).toBe(e['expect-dialog'] === 'true');
      if (e['expect-cursor-on-input']) expect(input.cursorOnInput).toBe(e['expect-cursor-on-input'] === 'true');
    });
  }
});

describe('detectState', () => {
  const claude = profiles.get('claude')!;

  it('explains the deciding rule, its region and the rules tried before it', () => {
    const d = detectState(loadScreenFixture('claude', 'real-busy.txt').snapshot, claude);
    expect(d.ruleId).toBe('esc_to_interrupt');
    expect(d.region).toMatch(/^bottom 2 non-empty lines \(rows \d+-\d+\)$/);
    expect(d.evidence).toContain('esc to interrupt');
    expect(d.tried.map((t) => t.ruleId)).toEqual(['trust_folder', 'permission_dialog', 'selection_menu', 'esc_to_interrupt']);
    expect(d.tried.at(-1)?.matched).toBe(true);
    expect(d.tried[0]?.matched).toBe(false);
    expect(d.tried[0]?.evidence).toMatch(/no "do you trust the files in this folder"/);
  });

  it('"esc to interrupt" in the transcript is not a busy footer', () => {
    const idle = loadScreenFixture('claude', 'real-idle.txt').snapshot;
    const lines = [...idle.lines];
    lines[5] = '● Press esc to interrupt me whenever you like.';
    expect(detectState({ ...idle, lines }, claude)).toMatchObject({ state: 'idle', ruleId: 'prompt_box' });
  });

  it('gives unknown with no rule when nothing matches', () => {
    const d = detectState({ lines: ['compiling...'], cols: 80, rows: 1, cursor: { x: 0, y: 0, visible: true }, title: '', alternateScreen: false }, claude);
    expect(d).toMatchObject({ state: 'unknown', ruleId: null, evidence: 'no rule matched' });
  });

  it('reads the OSC title as a region', () => {
    const d = detectState({ lines: ['output'], cols: 80, rows: 1, cursor: { x: 0, y: 0, visible: false }, title: '⠐ Fixing tests', alternateScreen: false }, claude);
    expect(d).toMatchObject({ state: 'busy', ruleId: 'title_spinner', region: 'OSC window title' });
  });

  it("Claude: a spinner frame left in the title after the turn does not outweigh the idle prompt box on screen (bench:states saw it stuck for seconds)", () => {
    const claude = profiles.get('claude')!;
    const idle = loadScreenFixture('claude', 'real-idle.txt').snapshot;
    expect(detectState({ ...idle, title: '⠐ Stub session' }, claude)).toMatchObject({ state: 'idle', ruleId: 'prompt_box' });
    // ...while the screen's own busy markers still win over the idle box.
    const busy = loadScreenFixture('claude', 'real-busy.txt').snapshot;
    expect(detectState({ ...busy, title: '✳ Claude Code' }, claude)).toMatchObject({ state: 'busy', ruleId: 'esc_to_interrupt' });
  });

  it('a spinner line just above the prompt box is busy even without the hint', () => {
    const lines = ['● Reading files', '', '✶ Cogitating…', '', '─'.repeat(40), '>', '─'.repeat(40)];
    const d = detectState({ lines, cols: 80, rows: lines.length, cursor: { x: 2, y: 5, visible: true }, title: '', alternateScreen: false }, claude);
    expect(d).toMatchObject({ state: 'busy', ruleId: 'spinner_line' });
    expect(d.region).toMatch(/above the prompt box at row 4/);
  });
});
