import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_HUB_RUNNING } from '../client/connect.js';
import { Hub } from '../hub/hub.js';
import { SwbError } from '../protocol/error-codes.js';
import type { HubLimits } from '../protocol/limits.js';
import type { CommandDescriptor } from './command.js';

export const hubCommand: CommandDescriptor = {
  name: 'hub',
  summary: 'Run the workspace hub in the foreground (headless: no TUI). Ctrl-C stops it.',
  usage: '',
  maxArgs: 0,
  json: false,
  flags: [
    { name: 'max-unread', type: 'number', value: 'N', description: 'unread messages per recipient before QUEUE_FULL (0 = unlimited; default 256)' },
    { name: 'rate', type: 'number', value: 'N', description: 'messages per second per sender (0 = unlimited; default 50)' },
    { name: 'max-message', type: 'number', value: 'BYTES', description: 'longest message text (default 16384)' },
    { name: 'max-frame', type: 'number', value: 'BYTES', description: 'longest protocol frame (default 65536)' },
    { name: 'retention-days', type: 'number', value: 'DAYS', description: 'delete read mail older than this (0 = keep; default 30)' },
    { name: 'expiry-hours', type: 'number', value: 'HOURS', description: 'expire unread mail older than this (0 = never; default)' },
    { name: 'detached', type: 'boolean', description: 'started in the background by a CLI command: log to the runtime dir' },
  ],
  async run(ctx) {
    const limits: Partial<HubLimits> = {};
    const flag = (name: string) => ctx.flags[name] as number | undefined;
    if (flag('max-unread') !== undefined) limits.maxUnread = Math.floor(flag('max-unread')!);
    if (flag('rate') !== undefined) limits.ratePerSecond = flag('rate')!;
    if (flag('max-message') !== undefined) limits.maxMessageBytes = Math.floor(flag('max-message')!);
    if (flag('max-frame') !== undefined) limits.maxFrameBytes = Math.max(1024, Math.floor(flag('max-frame')!));
    if (flag('retention-days') !== undefined) limits.retentionDays = flag('retention-days')!;
    if (flag('expiry-hours') !== undefined) limits.expiryHours = flag('expiry-hours')!;
    const detached = ctx.flags.detached === true;
    const logFile = join(ctx.paths.runDir, 'hub.log');
    const log = (line: string) => {
      const stamped = `${new Date().toISOString()} ${line}`;
      if (detached) {
        try {
          appendFileSync(logFile, `${stamped}\n`, { mode: 0o600 });
        } catch {
          // logging must never take the hub down
        }
      } else process.stderr.write(`${stamped}\n`);
    };
    let hub: Hub;
    try {
      hub = await Hub.start({ paths: ctx.paths, limits, log });
    } catch (err) {
      if (err instanceof SwbError && err.code === 'HUB_RUNNING') {
        if (!detached) process.stderr.write(`swb hub: HUB_RUNNING: ${err.message}\n`);
        return EXIT_HUB_RUNNING;
      }
      throw err;
    }
    log(`hub for ${ctx.paths.workspaceId} listening on ${ctx.paths.socketPath} (pid ${process.pid})`);
    await new Promise<void>((resolve) => {
      const stop = () => void hub.stop();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      process.once('SIGHUP', stop);
      hub.onStopped(() => resolve());
    });
    log('hub stopped');
    return 0;
  },
};
