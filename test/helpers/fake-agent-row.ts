// A row for a RowAgent without a pty: the test says what the screen shows (a render function) and
// when it changed, and hears what the agent types. Also wraps a HeadlessRun (a real program in a pty
// and an emulated screen) as such a row, and starts an agent on a row with the options a test leaves
// out (policy auto, no mail, no audit).
import type { ScreenSnapshot } from '../../src/rows/screen-snapshot.js';
import { RowAgent, type AgentRow, type RowAgentOptions } from '../../src/supervisor/row-agent.js';
import { Emitter } from '../../src/util/event.js';
import type { HeadlessRun } from './headless-screen.js';

export class FakeAgentRow implements AgentRow {
  state: 'running' | 'exited' = 'running';
  private readonly changes = new Emitter<void>();
  private readonly exits = new Emitter<{ exitCode: number }>();
  private readonly restarts = new Emitter<void>();
  readonly onScreenChange = this.changes.event;
  readonly onExit = this.exits.event;
  readonly onRestart = this.restarts.event;
  readonly screen = { snapshot: (): ScreenSnapshot => this.render() };

  constructor(
    readonly name: string,
    private readonly render: () => ScreenSnapshot,
    private readonly typed: (bytes: string) => void,
  ) {}

  write(bytes: string): void {
    this.typed(bytes);
  }

  /** The screen changed (the agent takes a snapshot within its interval). */
  changed(): void {
    this.changes.fire();
  }
}

/** A HeadlessRun as a RowAgent's row: its screen changes reach the agent, what the agent types reaches it. */
export function headlessAgentRow(run: HeadlessRun, name: string, typed: (bytes: string) => void = (b) => run.write(b)): FakeAgentRow {
  const row = new FakeAgentRow(name, () => run.snapshot(), typed);
  run.onChange(() => row.changed());
  return row;
}

/** A RowAgent on `row`: what the test does not give is auto, no unread mail, nothing recorded. */
export function agentOnRow(o: Pick<RowAgentOptions, 'row' | 'profile' | 'clock'> & Partial<RowAgentOptions>): RowAgent {
  return new RowAgent({
    policy: 'auto',
    audit: () => {},
    recordWakeEvent: () => {},
    unread: () => ({ messageIds: [], maxSeq: 0 }),
    ...o,
  });
}
