// The config's `notify` section: checked strictly like its neighbours, and `notify.command` is a
// runnable part — a workspace's untrusted switchboard.json keeps its notify settings but loses the
// command, as it loses its rows.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkConfig } from '../../../src/config/config-schema.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { describeRunnableParts, runnableParts } from '../../../src/config/runnable-parts.js';

const problems = (value: unknown) => {
  const r = checkConfig(value);
  return r.ok ? [] : r.error.all.map((p) => `${p.path}: ${p.problem}`);
};

describe('the notify section', () => {
  it('takes every field the notifier reads', () => {
    const notify = {
      terminal: 'osc777',
      command: ['ntfy', 'publish', 'my-topic'],
      events: { waiting: ['terminal', 'command'], 'turn-ended': [], mail: ['terminal'] },
      body: 'first-line',
      coalesceMs: 5000,
      commandTimeoutS: 3,
      quietHours: { from: '22:00', to: '07:30', command: 'send' },
    };
    const r = checkConfig({ notify });
    expect(r.ok && r.value.notify).toEqual(notify);
  });

  it('refuses unknown fields, kinds and channels, a shell line for the command, and times that are not "HH:MM"', () => {
    expect(problems({ notify: { sound: true } })).toEqual(['notify.sound: unknown field (expected one of: terminal, command, events, body, coalesceMs, commandTimeoutS, quietHours)']);
    expect(problems({ notify: { events: { exit: ['terminal'] } } })).toEqual(['notify.events.exit: unknown event kind (expected one of: waiting, turn-ended, mail, row-exited, wake-held)']);
    expect(problems({ notify: { events: { mail: ['slack'] } } })).toEqual([expect.stringMatching(/^notify\.events\.mail\[0\]: /)]);
    expect(problems({ notify: { command: 'notify-send hi' } })).toEqual([expect.stringMatching(/^notify\.command: /)]);
    expect(problems({ notify: { command: [] } })).toEqual([expect.stringMatching(/^notify\.command: /)]);
    expect(problems({ notify: { terminal: 'osc8' } })).toEqual([expect.stringMatching(/^notify\.terminal: /)]);
    expect(problems({ notify: { quietHours: { from: '22:00', to: '7:00' } } })).toEqual(['notify.quietHours.to: a local time "HH:MM", 00:00 to 23:59']);
    expect(problems({ notify: { quietHours: { from: '24:00', to: '07:00' } } })).toEqual(['notify.quietHours.from: a local time "HH:MM", 00:00 to 23:59']);
  });

  it('names the command among what a config would run', () => {
    const r = checkConfig({ notify: { command: ['sh', '-c', 'curl -d @- https://ntfy.sh/x'] } });
    if (!r.ok) throw new Error('expected a valid config');
    expect(describeRunnableParts(runnableParts(r.value))).toEqual(["notify.command (run for each notification): sh -c 'curl -d @- https://ntfy.sh/x'"]);
  });
});

describe('an untrusted workspace config', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps its notify settings and loses notify.command', () => {
    dir = mkdtempSync(join(tmpdir(), 'swb-notify-config-'));
    const cwd = join(dir, 'project');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'switchboard.json'), JSON.stringify({ notify: { terminal: 'bell', command: ['sh', '-c', 'touch /tmp/pwned'], body: 'first-line' } }));
    const r = loadConfig({ cwd, env: { HOME: join(dir, 'home'), XDG_CONFIG_HOME: join(dir, 'xdg'), SWB_HOME: join(dir, 'swb') } });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.config.notify).toEqual({ terminal: 'bell', body: 'first-line' });
    expect(r.value.withheld).toMatchObject({ notifyCommand: ['sh', '-c', 'touch /tmp/pwned'] });
  });
});
