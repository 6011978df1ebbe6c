// `swb notify test [--kind K]`: one notification of each kind (or of kind K) through the channels
// the config's `notify` section routes it to, so the operator sees what they will get before an
// agent needs them. Until the server sends notifications itself (issue #37, phase 2) this command
// is the notifier: it runs notify.command, and writes the terminal channel's bytes to its own
// stdout, which is the operator's terminal when they run it by hand (detected from this process's
// TERM_PROGRAM, TERM, WT_SESSION, KITTY_WINDOW_ID). `--json` sends nothing and prints what would be
// sent: per event, the terminal's bytes and the command's argv and stdin, or why a channel holds it.
import { loadConfig } from '../config/load-config.js';
import { describeOutcome, type CommandOutcome } from '../notify/command-channel.js';
import { isNotifyEventKind, NOTIFY_EVENT_KINDS } from '../config/notify-settings.js';
import type { NotifyEvent } from '../notify/notify-event.js';
import { resolveNotifyPolicy } from '../notify/notify-policy.js';
import type { NotifyChannel } from '../config/notify-settings.js';
import { notificationPayload } from '../notify/notification-payload.js';
import { notificationText } from '../notify/notification-text.js';
import { Notifier, terminalNoticeId } from '../notify/notifier.js';
import { terminalKindFor, terminalReportFromEnv } from '../notify/terminal-detect.js';
import { terminalNotificationBytes } from '../notify/terminal-sequences.js';
import { SwbError } from '../protocol/error-codes.js';
import { EXIT_FAILED, EXIT_OK, UsageError, type CommandDescriptor } from './command.js';

const TEST_ROW = 'notify-test';

/** One made-up event of each kind, as the sources will send them. */
function sampleEvents(at: number): NotifyEvent[] {
  const body = 'This is a test notification from swb notify test.';
  return [
    { kind: 'waiting', reason: 'permission', row: TEST_ROW, at, body },
    { kind: 'turn-ended', reason: 'idle', row: TEST_ROW, at },
    { kind: 'mail', reason: 'to-operator', row: TEST_ROW, at, body },
    { kind: 'row-exited', reason: 'non-zero', exitCode: 1, row: TEST_ROW, at },
    { kind: 'wake-held', reason: 'loop-guard', row: TEST_ROW, at },
  ];
}

export const notifyCommand: CommandDescriptor = {
  name: 'notify',
  summary: 'Send a test notification of each kind through the channels your config names.',
  usage: 'test',
  minArgs: 1,
  maxArgs: 1,
  flags: [
    { name: 'kind', type: 'string', value: 'KIND', description: `only this kind: ${NOTIFY_EVENT_KINDS.join(', ')}` },
    { name: 'config', type: 'string', value: 'FILE', description: 'read the notify section from FILE (default: $SWB_CONFIG, ./switchboard.json, the user config)' },
  ],
  details:
    'The terminal notification is written to this command\'s stdout when it is a terminal (the sequence your config names, or the one detected for it); ' +
    'notify.command runs with the event as JSON on its stdin, and its outcome is printed. --json sends nothing: it prints what would be sent. ' +
    'Quiet hours and the per-kind routes apply as they will for real notifications. See docs/CONFIG.md, "Notifications".',
  async run(ctx) {
    if (ctx.args[0] !== 'test') throw new UsageError(`${JSON.stringify(ctx.args[0])}: expected test`);
    const only = ctx.flags.kind as string | undefined;
    if (only !== undefined && !isNotifyEventKind(only)) throw new UsageError(`--kind ${JSON.stringify(only)}: expected one of ${NOTIFY_EVENT_KINDS.join(', ')}`);
    const loaded = loadConfig({
      ...(ctx.flags.config !== undefined ? { configPath: ctx.flags.config as string } : {}),
      cwd: ctx.paths.explicitWorkspace ? process.cwd() : ctx.paths.workspace,
      env: ctx.env,
    });
    if (!loaded.ok) throw new SwbError('CONFIG_INVALID', loaded.error.message);
    const { config } = loaded.value;
    const policy = resolveNotifyPolicy(config.notify, config.notifications);
    const terminalKind = terminalKindFor(policy.terminal, terminalReportFromEnv(ctx.env));
    const toTerminal = process.stdout.isTTY === true;
    const events = sampleEvents(Date.now()).filter((e) => only === undefined || e.kind === only);
    const outcomes = new Map<NotifyEvent['kind'], CommandOutcome>();
    const written = new Set<string>();
    const notifier = new Notifier({
      policy,
      env: ctx.env,
      writeTerminal: (notice) => {
        if (terminalKind === null || ctx.json) return;
        if (toTerminal) process.stdout.write(terminalNotificationBytes(terminalKind, notice));
        written.add(notice.id);
      },
    });
    try {
      const held = (channel: NotifyChannel, e: NotifyEvent) => notifier.heldBecause(channel, e.row, e.kind);
      const terminalPlan = (e: NotifyEvent) => {
        const why = held('terminal', e);
        if (why !== null || terminalKind === null) return { held: why ?? 'not-routed' };
        const text = notificationText(e, { body: policy.body });
        return { kind: terminalKind, text, bytes: terminalNotificationBytes(terminalKind, { id: terminalNoticeId(e), text }) };
      };
      if (ctx.json) {
        ctx.result({
          terminal: terminalKind ?? 'off',
          ...(loaded.value.withheld?.notifyCommand ? { commandWithheld: 'the config is not trusted: swb trust' } : {}),
          events: events.map((e) => {
            const payload = notificationPayload(e, { body: policy.body });
            const commandHeld = held('command', e);
            return {
              kind: e.kind,
              terminal: terminalPlan(e),
              command: commandHeld === null && policy.command ? { argv: policy.command, stdin: payload } : { held: commandHeld ?? 'not-routed' },
            };
          }),
        });
        return EXIT_OK;
      }
      const commands = notifier.commandChannel;
      commands?.onFinished(({ payload, outcome }) => outcomes.set(payload.kind, outcome));
      for (const e of events) notifier.notify(e);
      await commands?.idle();
      if (loaded.value.withheld?.notifyCommand) ctx.print(`notify.command was not run: ${loaded.value.path ?? 'the config'} is not trusted (swb trust).`);
      if (!toTerminal && terminalKind !== null) ctx.print('stdout is not a terminal: the terminal notifications were not written (--json shows them).');
      let failed = false;
      for (const e of events) {
        const terminal = written.has(terminalNoticeId(e)) ? `${terminalKind} ${toTerminal ? 'written' : 'made'}` : `held (${held('terminal', e) ?? 'not-routed'})`;
        const outcome = outcomes.get(e.kind);
        if (outcome && !outcome.ok) failed = true;
        const command = outcome ? describeOutcome(outcome) : `held (${held('command', e) ?? 'not-routed'})`;
        ctx.print(`${e.kind.padEnd(10)}  terminal: ${terminal}; command: ${command}`);
      }
      return failed ? EXIT_FAILED : EXIT_OK;
    } finally {
      notifier.dispose();
    }
  },
};
