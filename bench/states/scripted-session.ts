// The operator's side of one `bench:states` session (issue #37), the same for every agent: types a
// prompt into the attached row and notes when its Enter goes out, presses a key and notes when, waits
// for the stand-in's answers, and waits as an operator would for the agent to look done before the next
// step. It keeps the true timeline (state-timeline.ts says what is true when).
import { operate, type OperatorStep } from '../../test/helpers/swb-operator.js';
import type { TerminalHarness } from '../../test/helpers/terminal-harness.js';
import { waitUntil } from '../../test/helpers/wait-until.js';
import type { Look, Mark, State } from './state-timeline.js';

export interface AgentSide {
  /** The screen shows this line typed into the agent's input. */
  inputShows(text: string): { waitFor: (screen: string) => boolean; what: string };
  /** What goes out after a typed line to submit it (an agent may need a pause first). */
  submit: OperatorStep[];
  /** The stand-in's model requests and finished answers. */
  requests(): ReadonlyArray<{ at: number; lastUser: string }>;
  answered(): ReadonlyArray<{ at: number; lastUser: string; toolUse: boolean; failed?: true }>;
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A typed line not on screen after this long is typed again (it never reached the agent). */
const RETYPE_AFTER_MS = 6000;

export class ScriptedSession {
  readonly truth: Mark[];

  constructor(
    private readonly t: TerminalHarness,
    private readonly agent: AgentSide,
    private readonly looks: readonly Look[],
    readonly t0: number,
  ) {
    // The row was idle when the session began (the dashboard said so).
    this.truth = [{ at: t0, state: 'idle' }];
  }

  mark(at: number, state: State, label: string): void {
    this.truth.push({ at, state, label });
  }

  /**
   * Types a line and submits it; resolves with when the submitting key went out. A line that never
   * reached the agent's input is typed again: Codex drew its input box before it took keys (seen
   * once, loaded: the first prompt's keys lost, the session stopped after 20 s).
   */
  async enter(line: string): Promise<number> {
    let entered = 0;
    let typedAt = Infinity;
    const submit = this.agent.submit;
    const last = submit.length - 1;
    const shows = this.agent.inputShows(line);
    // A timer, not the wait's own check: a screen that never changes is never checked again.
    const retype = setInterval(() => {
      if (Date.now() - typedAt < RETYPE_AFTER_MS || this.t.screenText().join('\n').includes(line)) return;
      this.t.write(line);
      typedAt = Date.now();
    }, 500);
    try {
      const now = (set: (at: number) => void): OperatorStep => ({ waitFor: () => (set(Date.now()), true), what: 'now' });
      await operate(this.t, [line, now((at) => (typedAt = at)), shows, now(() => (typedAt = Infinity)), ...submit.slice(0, last), now((at) => (entered = at)), submit[last]!]);
    } finally {
      clearInterval(retype);
    }
    return entered;
  }

  /** A prompt: the turn truly starts when its Enter goes out (the stand-in confirms it got the prompt). */
  async submit(prompt: string): Promise<number> {
    const from = Date.now();
    const at = await this.enter(prompt);
    await waitUntil(() => this.agent.requests().find((r) => r.lastUser === prompt && r.at >= from), { timeoutMs: 60_000, what: `"${prompt}" to reach the stand-in` }).catch((err: Error) => {
      throw new Error(`${err.message}\n${this.t.describe()}`);
    });
    return at;
  }

  async press(key: string): Promise<number> {
    let pressed = 0;
    await operate(this.t, [{ waitFor: () => ((pressed = Date.now()), true), what: 'now' }, key]);
    return pressed;
  }

  finalAnswer(after: number) {
    return waitUntil(() => this.agent.answered().find((a) => a.at >= after && !a.toolUse && !a.failed), { timeoutMs: 90_000, what: 'the final answer' });
  }

  toolCall(after: number) {
    return waitUntil(() => this.agent.answered().find((a) => a.at >= after && a.toolUse), { timeoutMs: 90_000, what: 'the tool call' });
  }

  /** A whole turn: Enter, the stand-in's last answer, then the operator waits for it to look done. */
  async turn(prompt: string, label = prompt): Promise<void> {
    const at = await this.submit(prompt);
    this.mark(at, 'busy', `${label}: Enter`);
    this.mark((await this.finalAnswer(at)).at, 'idle', `${label}: answered`);
    await this.settle();
  }

  /**
   * A tool call that asks first, answered with `key`: `goesOn` (the answer lets it run) or not (the
   * turn ends at the key).
   */
  async permission(prompt: string, dialogText: string | RegExp, key: string, goesOn: boolean, label: string): Promise<void> {
    const at = await this.submit(prompt);
    this.mark(at, 'busy', `${label}: Enter`);
    this.mark((await this.toolCall(at)).at, 'waiting', `${label}: asks`);
    await this.t.waitForText(dialogText, { timeoutMs: 60_000 });
    await pause(1000);
    const pressed = await this.press(key);
    if (goesOn) {
      this.mark(pressed, 'busy', `${label}: answered yes`);
      this.mark((await this.finalAnswer(pressed)).at, 'idle', `${label}: answered`);
    } else this.mark(pressed, 'idle', `${label}: refused`);
    await this.settle();
  }

  /**
   * A slow turn interrupted with the agent's interrupt key after `afterMs`. `givesDraftBack`: the agent
   * puts the interrupted prompt back in its input (Claude Code does), erased before the next step.
   */
  async interrupt(prompt: string, key: string, afterMs = 2000, givesDraftBack = false, label = 'Esc mid-turn'): Promise<void> {
    this.mark(await this.submit(prompt), 'busy', `${label}: Enter`);
    await pause(afterMs);
    this.mark(await this.press(key), 'idle', `${label}: Esc`);
    await this.settle();
    if (givesDraftBack) await this.eraseDraft(prompt);
  }

  /**
   * An Esc `afterMs` after a prompt's Enter, before the agent has drawn (or swb has read) its turn: the
   * turn is dropped at once. The stand-in need not have the request yet (it answers "slow" prompts
   * after 30 s, so none ends on its own).
   */
  async escAtOnce(prompt: string, key: string, afterMs = 250, givesDraftBack = false): Promise<void> {
    const at = await this.enter(prompt);
    this.mark(at, 'busy', 'Esc at once: Enter');
    await pause(Math.max(0, at + afterMs - Date.now()));
    this.mark(await this.press(key), 'idle', 'Esc at once: Esc');
    await this.settle();
    if (givesDraftBack) await this.eraseDraft(prompt);
  }

  /**
   * The interrupted prompt the agent gave back as a draft, erased with Backspace so the next line is
   * typed into an empty input (on an empty input the keys do nothing). The screen's input line is not
   * waited on: an agent may echo the prompt in its transcript in the same shape.
   */
  private async eraseDraft(prompt: string): Promise<void> {
    await operate(this.t, ['\x7f'.repeat(prompt.length), { pauseMs: 500 }]);
  }

  /** A crash: the agent's process killed. */
  async crash(pid: number | null | undefined): Promise<void> {
    if (!pid) return;
    this.mark(Date.now(), 'exited', 'crash: SIGKILL');
    process.kill(pid, 'SIGKILL');
    await pause(2000);
  }

  /**
   * The session every agent without extra cases runs: a quick turn, a 7 s one (the stand-in's prompts
   * "quick one", "long one"), a tool call that asks answered yes then one refused ("tool please", "tool
   * again"), an Esc mid-turn ("slow one"), an Esc 250 ms after a prompt's Enter ("slow two"), then a
   * crash of the row's process.
   */
  async standard(dialogText: string | RegExp, yesKey: string, what: string, pid: () => Promise<number | null | undefined>): Promise<void> {
    await this.turn('quick one');
    await this.turn('long one');
    await this.permission('tool please', dialogText, yesKey, true, `${what} yes`);
    await this.permission('tool again', dialogText, '\x1b', false, `${what} refused`);
    await this.interrupt('slow one', '\x1b');
    await this.escAtOnce('slow two', '\x1b');
    await this.crash(await pid());
  }

  /** The operator waits until the agent shows it is done (no busy marker, no dialog), then a little more. */
  async settle(): Promise<void> {
    await waitUntil(
      () => {
        const l = this.looks.at(-1);
        return l !== undefined && !l.working && !l.dialog;
      },
      { timeoutMs: 90_000, what: 'the agent to look done' },
    );
    await pause(2500);
  }
}
