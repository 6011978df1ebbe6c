// What `npm run bench:states` (issue #37) shares between its agents: the three timelines of one scripted
// session and how they are scored.
//   - truth: what the stand-in and the operator know. A transition the operator makes (a prompt's
//     Enter, a key answering a dialog, an Esc) is true when the key goes out; one the agent makes (its
//     answer finished, a tool call that needs permission) when the stand-in handed it out.
//   - looks: what the operator sees on the agent's own screen (the attached row in the dashboard): is a
//     turn running (the agent's busy marker), is a dialog up. Read with the agent's plain markers,
//     never with swb's rules or verdict.
//   - seen: swb's state for the row (`swb events --kinds state`, stamped by the server).
// Two truths are scored. "stand-in" is the truth above. "as seen" moves each transition to when the
// agent's screen first shows it, never earlier (the operator cannot know a turn ended while the agent
// still draws its spinner, that it asks before the dialog is drawn, or that an Esc stopped it before
// the spinner goes; the agent is still working then). Agreement: samples every 50 ms outside 300 ms
// around each true transition. Latency: from each true transition to swb's first reading of its state.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundledProfilesDir } from '../../src/agents/load-profiles.js';
import { nativeHookClientPath } from '../../src/util/native-addon.js';
import { hookStartToExit } from '../../test/helpers/hook-clients.js';
import type { TerminalHarness } from '../../test/helpers/terminal-harness.js';
import type { TempHome } from '../../test/helpers/temp-home.js';
import { spawnSwb } from '../../test/helpers/run-swb.js';
import { waitUntil } from '../../test/helpers/wait-until.js';

export const SAMPLE_MS = 50;
export const WINDOW_MS = 300;
export type State = 'idle' | 'busy' | 'waiting' | 'exited';

export interface Mark {
  at: number;
  state: State;
  /** seen: the signal and rule behind swb's reading. */
  why?: string;
  /** truth: the scripted step it belongs to (the dump's per-transition table). */
  label?: string;
  /** seen: when the agent started the hook (or wrote the transcript line) behind the reading; absent when the screen alone decided. */
  signalAt?: number;
}

export interface Look {
  at: number;
  /** The agent's busy marker is on screen. */
  working: boolean;
  /** A dialog (permission, question) is on screen. */
  dialog: boolean;
}

export interface Session {
  truth: Mark[];
  seen: Mark[];
  looks: Look[];
  t0: number;
  t1: number;
  /** The rows' hook command's start-to-exit in the same run (ms), when measured (hookFloors). */
  floor: number[];
  /** `swb hook` (node)'s, beside it. */
  floorNode?: number[];
}

const pct = (xs: number[], p: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!);

export function stateAt(line: readonly Mark[], t: number): string {
  let s = 'unknown';
  for (const m of line) if (m.at <= t) s = m.state;
  return s;
}

/**
 * The row's states as swb reports them, from `swb events` (the server's time of each change), and the
 * agent's screen as the operator sees it, sampled every 10 ms through the dashboard's terminal.
 */
export function watchRow(home: TempHome, row: string, t: TerminalHarness, markers: { working: RegExp; dialog: RegExp }) {
  const seen: Mark[] = [];
  const looks: Look[] = [];
  const screens: string[] = [];
  const events = spawnSwb(['events', '--json', '--kinds', 'state', '--row', row], { home, timeoutMs: 900_000 });
  let n = 0;
  let lastBottom = '';
  const drain = () => {
    const lines = events.stdout().split('\n');
    for (; n < lines.length - 1; n++) {
      const e = JSON.parse(lines[n]!) as { at: number; state: string; rule?: string | null; source?: string; signalAt?: number };
      // `unknown` is what the dashboard shows as neither busy nor waiting: it counts as idle.
      seen.push({ at: e.at, state: (e.state === 'unknown' ? 'idle' : e.state) as State, why: `${e.source ?? ''}/${e.rule ?? ''}`, ...(typeof e.signalAt === 'number' ? { signalAt: e.signalAt } : {}) });
    }
  };
  const poll = setInterval(() => {
    drain();
    const lines = t.screenText();
    const text = lines.join('\n');
    const look = { at: Date.now(), working: markers.working.test(text), dialog: markers.dialog.test(text) };
    const last = looks.at(-1);
    if (!last || last.working !== look.working || last.dialog !== look.dialog) looks.push(look);
    if (process.env.SWB_BENCH_DUMP === '1') {
      const bottom = lines.slice(-16).join('\n');
      if (bottom !== lastBottom && screens.length < 5000) screens.push(`@${look.at}\n${bottom}`), (lastBottom = bottom);
    }
  }, 10);
  return {
    seen,
    looks,
    /**
     * Resolves once `swb events` has subscribed (it says "watching" on stderr: the stream is live from
     * there). A socket among its descriptors was not enough: under load the subscription came later
     * and the first turn's busy was missed (seen: a Codex screen-only session read idle through a
     * 3.5 s "Waiting for startup").
     */
    async ready(): Promise<void> {
      await waitUntil(() => /swb events: watching/.test(events.stderr()), { timeoutMs: 30_000, what: 'swb events to subscribe' });
    },
    /** Stops watching; with SWB_BENCH_DUMP=1 the screens seen go to `dumpFile`. */
    stop(dumpFile?: string, t0 = 0) {
      clearInterval(poll);
      drain();
      events.child.kill();
      // A reader that fell behind is dropped by the hub and reconnects; what changed meanwhile is not
      // replayed, so the session's readings have a gap its score cannot show.
      const gaps = events.stderr().split('swb events: reconnected').length - 1;
      if (gaps > 0) process.stderr.write(`bench:states: ${row}'s state stream reconnected ${gaps} time(s): readings between were lost, the score is not to be trusted\n`);
      if (dumpFile && process.env.SWB_BENCH_DUMP === '1') writeFileSync(dumpFile, `t0 ${t0}\n${screens.join('\n')}`);
    },
  };
}

/**
 * Each transition moved to when the agent's screen first shows it, never earlier (see the header): a
 * turn's start when its busy marker appears, a dialog when it is drawn, an end when the screen settles
 * for good into neither (the last such change before the next transition: the agent may drop its busy
 * marker for a moment mid-turn). An exit shows nothing on screen and stays where it was.
 */
export function asSeenTruth(truth: readonly Mark[], looks: readonly Look[]): Mark[] {
  const done = (l: Look) => !l.working && !l.dialog;
  return truth.map((m, i) => {
    if (i === 0 || m.state === 'exited') return m;
    const next = truth[i + 1]?.at ?? Infinity;
    const inForce = (t: number) => [...looks].reverse().find((l) => l.at <= t);
    // A turn's first busy frame may come after the stand-in's answer already ended (the agent drew
    // nothing for seconds): look for it up to the transition after next.
    const limit = m.state === 'busy' ? (truth[i + 2]?.at ?? Infinity) : next;
    const within = looks.filter((l) => l.at > m.at && l.at < limit);
    let at: number | undefined;
    if (m.state === 'idle') {
      // The start of the last stretch of done looks before the next transition.
      const atNext = inForce(Math.min(next, Number.MAX_SAFE_INTEGER) - 1);
      if (atNext && done(atNext)) {
        let start = atNext.at;
        for (let j = looks.indexOf(atNext) - 1; j >= 0 && done(looks[j]!); j--) start = looks[j]!.at;
        at = Math.max(m.at, start);
      }
    } else {
      const shows = (l: Look) => (m.state === 'waiting' ? l.dialog : l.working);
      const now = inForce(m.at);
      at = now && shows(now) ? m.at : within.find(shows)?.at;
    }
    return { ...m, at: at ?? m.at };
  });
}

export interface Score {
  agreement: number;
  samples: number;
  /** Samples left out, within the window (WINDOW_MS unless told) of a true transition. */
  windowed: number;
  p50: number;
  p99: number;
  missed: number;
  idleWhileBusy: number;
  busyWhileWaiting: number;
  /** The longest stretch of any wrong reading outside the windows, and where it began (ms from t0). */
  longestWrong: number;
  longestWrongAt: number;
  floor: number;
  /**
   * The transitions a hook decided (their reading carries the hook's start), split at the hook's start:
   * the agent's part (true transition → it started the hook) and swb's (hook's start → swb's reading,
   * the hook process's own run included). The goal's floor is the hook's start: swb's part is what
   * "p50 ≤ the hook's start-to-exit + 50 ms" can hold swb to; the agent's part is the agent's.
   */
  bySignal: { n: number; agentP50: number; agentP99: number; swbP50: number; swbP99: number };
  /** Per true transition (in force at the sample): its label and state, and the wrong samples counted under it (ms). */
  wrongBy: Array<{ label: string; state: string; wrongMs: number; latencyMs: number; by: string }>;
}

/** Windows the report also scores at: the goal's 300 ms says how soon; 1 s says whether anything is wrong for long. */
export const WIDE_WINDOW_MS = 1000;

export function score(s: Session, truth: readonly Mark[] = s.truth, windowMs: number = WINDOW_MS): Score {
  const transitions = truth.slice(1);
  let agree = 0;
  let counted = 0;
  let windowed = 0;
  let idleWhileBusy = 0;
  let busyWhileWaiting = 0;
  let runIdle = 0;
  let runBusy = 0;
  let runWrong = 0;
  let longestWrong = 0;
  let longestWrongAt = 0;
  const wrongMs = truth.map(() => 0);
  for (let t = s.t0; t <= s.t1; t += SAMPLE_MS) {
    const truly = stateAt(truth, t);
    let inForce = 0;
    for (let i = 0; i < truth.length; i++) if (truth[i]!.at <= t) inForce = i;
    const read = stateAt(s.seen, t);
    runIdle = truly === 'busy' && read === 'idle' ? runIdle + SAMPLE_MS : 0;
    runBusy = truly === 'waiting' && read === 'busy' ? runBusy + SAMPLE_MS : 0;
    idleWhileBusy = Math.max(idleWhileBusy, runIdle);
    busyWhileWaiting = Math.max(busyWhileWaiting, runBusy);
    if (transitions.some((m) => Math.abs(m.at - t) <= windowMs)) {
      windowed++;
      continue;
    }
    counted++;
    if (truly === read) {
      agree++;
      runWrong = 0;
    } else {
      runWrong += SAMPLE_MS;
      wrongMs[inForce] = wrongMs[inForce]! + SAMPLE_MS;
      if (runWrong > longestWrong) (longestWrong = runWrong), (longestWrongAt = t - runWrong + SAMPLE_MS - s.t0);
    }
  }
  // From each true transition to swb's reading of its state: the first change to it after the previous
  // transition (up to 2 s early: swb may read it before the truth, e.g. a hook ahead of the screen).
  // That reading is kept too: its signal and rule name what decided the transition (the dump's table).
  const met: Array<Mark | undefined> = transitions.map((m, i) => {
    const from = Math.max(truth[i]!.at, m.at - 2000);
    if (stateAt(s.seen, from) === m.state) {
      // Already read so at `from`: early only if swb changed to it after the previous transition.
      return [...s.seen].reverse().find((x) => x.at <= from && x.state === m.state && x.at > truth[i]!.at);
    }
    return s.seen.find((x) => x.at > from && x.state === m.state);
  });
  const latencies = transitions.map((m, i) => (met[i] ? met[i].at - m.at : NaN));
  const ok = latencies.filter((x) => !Number.isNaN(x));
  const signalled = transitions.flatMap((m, i) => (met[i]?.signalAt !== undefined ? [{ agent: met[i].signalAt - m.at, swb: met[i].at - met[i].signalAt }] : []));
  return {
    agreement: (100 * agree) / Math.max(1, counted),
    samples: counted,
    windowed,
    p50: pct(ok, 50),
    p99: pct(ok, 99),
    missed: latencies.length - ok.length,
    idleWhileBusy,
    busyWhileWaiting,
    longestWrong,
    longestWrongAt,
    floor: pct(s.floor, 50),
    bySignal: {
      n: signalled.length,
      agentP50: pct(signalled.map((x) => x.agent), 50),
      agentP99: pct(signalled.map((x) => x.agent), 99),
      swbP50: pct(signalled.map((x) => x.swb), 50),
      swbP99: pct(signalled.map((x) => x.swb), 99),
    },
    wrongBy: truth.map((m, i) => ({ label: m.label ?? '', state: m.state, wrongMs: wrongMs[i]!, latencyMs: i === 0 ? 0 : latencies[i - 1]!, by: i === 0 ? '' : (met[i - 1]?.why ?? '') })),
  };
}

/** The transitions that cost samples, worst first (with SWB_BENCH_DUMP=1). */
export function wrongTable(name: string, x: Score): string {
  const rows = x.wrongBy
    .map((w, i) => ({ ...w, i }))
    .filter((w) => w.wrongMs > 0)
    .sort((a, b) => b.wrongMs - a.wrongMs)
    .map((w) => `  #${w.i} ${w.label || '(start)'} → ${w.state}: ${w.wrongMs} ms wrong, latency ${Number.isNaN(w.latencyMs) ? 'never' : `${w.latencyMs} ms`}${w.by ? ` (read by ${w.by})` : ''}`);
  return [`wrong samples by transition, ${name}:`, ...rows].join('\n');
}

export function scoreLine(name: string, x: Score): string {
  return (
    `${name.padEnd(22)} ${x.agreement.toFixed(1).padStart(6)} %  (${x.samples} samples, ${x.windowed} in windows)  p50 ${x.p50.toFixed(0).padStart(5)} ms  p99 ${x.p99.toFixed(0).padStart(5)} ms  missed ${x.missed}  ` +
    `idle-while-busy ${x.idleWhileBusy} ms  busy-while-waiting ${x.busyWhileWaiting} ms  longest wrong ${x.longestWrong} ms (at ${(x.longestWrongAt / 1000).toFixed(1)} s)`
  );
}

/** The hook-decided transitions split at the hook's start (Score.bySignal), or null when none was. */
export function signalLine(name: string, x: Score): string | null {
  const b = x.bySignal;
  if (b.n === 0) return null;
  return `${name.padEnd(22)} ${b.n} hook-decided: the agent started its hook p50 ${b.agentP50.toFixed(0)} / p99 ${b.agentP99.toFixed(0)} ms after the truth; swb read it p50 ${b.swbP50.toFixed(0)} / p99 ${b.swbP99.toFixed(0)} ms after the hook's start`;
}

/** With SWB_BENCH_DUMP=1: the timelines, relative to t0, for finding where a disagreement comes from. */
export function dumpTimelines(label: string, s: Session, seenTruth: readonly Mark[]): string {
  const rel = (m: Mark) => `${m.at - s.t0}:${m.state}`;
  return [
    `--- ${label}`,
    `truth    ${s.truth.map(rel).join(' ')}`,
    `as-seen  ${seenTruth.map(rel).join(' ')}`,
    `swb      ${s.seen.map((m) => `${rel(m)}(${m.why ?? ''})`).join(' ')}`,
    `looks    ${s.looks.map((l) => `${l.at - s.t0}:${l.working ? 'W' : '-'}${l.dialog ? 'D' : '-'}`).join(' ')}`,
  ].join('\n');
}

/**
 * A hook's start-to-exit, 7 times each, in this run (a hook's floor: the agent starts it as a process):
 * `floor` for the command the rows' recipes run (the native hook client where it was built), and
 * `floorNode` for `swb hook` in node (test/helpers/hook-clients.ts hookStartToExit says how).
 */
export async function hookFloors(home: TempHome): Promise<{ floor: number[]; floorNode: number[] }> {
  return { floor: await hookStartToExit(home, 'rows', 7), floorNode: await hookStartToExit(home, 'node', 7) };
}

/** The printed report: per mode, both truths; with SWB_BENCH_DUMP=1 the timelines and the costly transitions. */
export function report(title: string, modes: ReadonlyArray<readonly [string, Session]>): string {
  const lines = ['', `bench:states — ${title}`];
  // Each mode scored once against each truth; the lines below only read the scores.
  const scored = modes.map(([name, s]) => {
    const seenTruth = asSeenTruth(s.truth, s.looks);
    return { name, s, seenTruth, standIn: score(s), asSeen: score(s, seenTruth) };
  });
  for (const { name, s, seenTruth, standIn, asSeen } of scored) {
    if (process.env.SWB_BENCH_DUMP === '1') lines.push(dumpTimelines(name, s, seenTruth));
    lines.push(scoreLine(`${name} vs stand-in`, standIn), scoreLine(`${name} vs as-seen`, asSeen));
    const split = signalLine(`${name} vs stand-in`, standIn);
    if (split) lines.push(split);
    const wide = (truth: readonly Mark[]) => score(s, truth, WIDE_WINDOW_MS).agreement.toFixed(1);
    lines.push(`${name} at ${WIDE_WINDOW_MS / 1000} s windows: ${wide(s.truth)} % vs stand-in, ${wide(seenTruth)} % vs as-seen`);
    if (process.env.SWB_BENCH_DUMP === '1') lines.push(wrongTable(`${name} vs as-seen`, asSeen), wrongTable(`${name} vs stand-in`, standIn));
  }
  const floors = modes.flatMap(([, s]) => s.floor);
  if (floors.length > 0) {
    const floor = pct(floors, 50);
    const nodeFloors = modes.flatMap(([, s]) => s.floorNode ?? []);
    const client = nativeHookClientPath() ? 'the native hook client' : '`swb hook`';
    const node = nodeFloors.length > 0 ? ` (\`swb hook\` in node: ${pct(nodeFloors, 50).toFixed(0)} ms)` : '';
    lines.push(`hook start-to-exit, ${client} (median of ${floors.length}, same run): ${floor.toFixed(0)} ms${node}; goal fused p50 ≤ that + 50 ms = ${(floor + 50).toFixed(0)} ms`);
    // The floor is the hook's start: swb's own part of each hook-decided transition, against that goal.
    for (const { name, standIn } of scored) {
      const b = standIn.bySignal;
      if (b.n > 0) lines.push(`${name}: from the hook's start, p50 ${b.swbP50.toFixed(0)} ms ${b.swbP50 <= floor + 50 ? '≤' : '>'} ${(floor + 50).toFixed(0)} ms (the agent's own delay before it, p50 ${b.agentP50.toFixed(0)} ms, is not swb's to cut)`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * SWB_BENCH_QUIET_MS: the agent's bundled profile with another quiet time, as a user profile in the
 * session's config dir (it overrides the bundled one), to measure what the quiet time costs.
 */
export function overrideQuietTime(home: TempHome, profileId: string): void {
  const quiet = process.env.SWB_BENCH_QUIET_MS;
  if (!quiet) return;
  const dir = join(home.home, 'config', 'switchboard', 'profiles');
  mkdirSync(dir, { recursive: true });
  const profile = JSON.parse(readFileSync(join(bundledProfilesDir(), `${profileId}.json`), 'utf8')) as { quietMs: number };
  profile.quietMs = Number(quiet);
  writeFileSync(join(dir, `${profileId}.json`), JSON.stringify(profile));
}
