// Shared steps of the real-agent tests (test/real-agents/*.test.ts, and the live shell test): saving captured screens
// as fixtures, and waking a live agent through its RowAgent.
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { systemClock } from '../../src/util/clock.js';
import type { AgentProfile } from '../../src/agents/profile-schema.js';
import type { ScreenSnapshot } from '../../src/rows/screen-snapshot.js';
import { agentOnRow, headlessAgentRow } from './fake-agent-row.js';
import { toFixtureText, type HeadlessRun } from './headless-screen.js';
import { SCREENS_DIR } from './screen-fixture.js';

export const capturing = process.env.SWB_CAPTURE === '1';

export const has = (text: string) => (s: ScreenSnapshot) => s.lines.some((l) => l.includes(text));
export const bottomHas = (text: string, n = 6) => (s: ScreenSnapshot) =>
  s.lines.filter((l) => l.trim() !== '').slice(-n).some((l) => l.includes(text));

/** With SWB_CAPTURE=1, writes test/fixtures/screens/<agent>/<name>.txt; `tmpDir` is replaced by a stable path. */
export function saveFixture(
  agent: string,
  name: string,
  s: ScreenSnapshot,
  header: Record<string, string>,
  tmpDir: string,
  stablePath: string,
): void {
  if (!capturing) return;
  const stable = {
    ...s,
    lines: s.lines.map((l) =>
      l
        .replaceAll(tmpDir, stablePath)
        .replaceAll(basename(tmpDir), basename(stablePath))
        .replace(/\b\d{1,2}:\d{2} [AP]M\b/, '4:00 PM'),
    ),
  };
  writeFileSync(join(SCREENS_DIR, agent, `${name}.txt`), toFixtureText(stable, header));
}

/** Wakes the live agent through RowAgent with one unread message; resolves with the attempts it took. */
export async function wakeLiveAgent(run: HeadlessRun, profile: AgentProfile): Promise<number> {
  const agent = agentOnRow({ row: headlessAgentRow(run, profile.id), profile, clock: systemClock });
  try {
    const woken = new Promise<number>((resolve, reject) => {
      agent.wake.onWoken((e) => resolve(e.attempts));
      agent.wake.onWakeFailed((e) => reject(new Error(`wake failed: ${e.reason}`)));
    });
    agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    return await woken;
  } finally {
    agent.dispose();
  }
}
