// `swb hub`: a headless hub. Its limits come from the same config file the dashboard reads (the
// same search: --config, $SWB_CONFIG, ./switchboard.json in the workspace, the user's config), and
// flags override them, so a hub a CLI command starts after a crash runs the operator's limits. A
// file the operator has not trusted gives its limits only: never its federation (load-config.ts).
import { join } from 'node:path';
import { EXIT_HUB_RUNNING } from '../client/connect.js';
import { loadConfig } from '../config/load-config.js';
import { untrustedNote } from '../config/runnable-parts.js';
import { federationFromFlags, resolveFederationPaths } from '../config/federation-config.js';
import { Hub } from '../hub/hub.js';
import { SwbError } from '../protocol/error-codes.js';
import type { HubLimits } from '../protocol/limits.js';
import { logLine } from '../text/log-line.js';
import { RotatingLog } from '../util/rotating-log.js';
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
    { name: 'config', type: 'string', value: 'FILE', description: 'read limits from FILE (default: $SWB_CONFIG, ./switchboard.json, the user config)' },
    { name: 'federate', type: 'string', value: 'URL', description: 'join other machines\' servers through this NATS JetStream server (nats://HOST:PORT); overrides the config\'s federation.url' },
    { name: 'node', type: 'string', value: 'NAME', description: 'this node\'s name among them (default: the host name); remote rows are NAME\'s handle@NAME' },
    { name: 'detached', type: 'boolean', description: 'started in the background by a CLI command: log to the runtime dir' },
  ],
  async run(ctx) {
    const loaded = loadConfig({
      ...(ctx.flags.config !== undefined ? { configPath: ctx.flags.config as string } : {}),
      // A hub started for a workspace looks for the workspace's switchboard.json.
      cwd: ctx.paths.explicitWorkspace ? process.cwd() : ctx.paths.workspace,
      env: ctx.env,
    });
    if (!loaded.ok) throw new SwbError('BAD_REQUEST', loaded.error.message);
    const limits: Partial<HubLimits> = { ...loaded.value.limits };
    const flag = (name: string) => ctx.flags[name] as number | undefined;
    if (flag('max-unread') !== undefined) limits.maxUnread = Math.floor(flag('max-unread')!);
    if (flag('rate') !== undefined) limits.ratePerSecond = flag('rate')!;
    if (flag('max-message') !== undefined) limits.maxMessageBytes = Math.floor(flag('max-message')!);
    if (flag('max-frame') !== undefined) limits.maxFrameBytes = Math.max(1024, Math.floor(flag('max-frame')!));
    if (flag('retention-days') !== undefined) limits.retentionDays = flag('retention-days')!;
    if (flag('expiry-hours') !== undefined) limits.expiryHours = flag('expiry-hours')!;
    const federation = federationFromFlags(
      ctx.flags.federate as string | undefined,
      ctx.flags.node as string | undefined,
      loaded.value.config.federation ? resolveFederationPaths(loaded.value.config.federation, loaded.value.baseDir) : undefined,
    );
    if ('error' in federation) throw new SwbError('BAD_REQUEST', federation.error);
    const detached = ctx.flags.detached === true;
    const file = detached ? new RotatingLog(join(ctx.paths.runDir, 'hub.log')) : null;
    const log = (line: string) => {
      const stamped = `${new Date().toISOString()} ${line}`;
      if (file) file.append(stamped);
      else process.stderr.write(`${logLine(stamped)}\n`); // a terminal, most likely: as safe as the file
    };
    let hub: Hub;
    try {
      hub = await Hub.start({ paths: ctx.paths, limits, log, ...(federation.ok ? { federation: federation.ok } : {}) });
    } catch (err) {
      if (err instanceof SwbError && err.code === 'NODE_COLLISION') {
        process.stderr.write(`swb hub: NODE_COLLISION: ${err.message}\n`);
        return 1;
      }
      if (err instanceof SwbError && err.code === 'HUB_RUNNING') {
        if (!detached) process.stderr.write(`swb hub: HUB_RUNNING: ${err.message}\n`);
        return EXIT_HUB_RUNNING;
      }
      throw err;
    }
    // A workspace file nobody trusted: its federation was left out by the loader; say so where the operator looks.
    if (loaded.value.withheld && loaded.value.path) log(untrustedNote(loaded.value.path, loaded.value.withheld));
    // The signals are caught before the line that names this pid is written: a SIGTERM sent as soon as
    // it is read (a supervisor, a test) must stop the hub cleanly, not find node's default and kill it.
    const stopped = new Promise<void>((resolve) => {
      const stop = () => void hub.stop();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      process.once('SIGHUP', stop);
      hub.onStopped(() => resolve());
    });
    log(`hub for ${ctx.paths.workspaceId} listening on ${ctx.paths.socketPath} (pid ${process.pid}); limits from ${loaded.value.path ?? 'defaults'}${Object.keys(ctx.flags).some((f) => f !== 'detached' && f !== 'config') ? ' and flags' : ''}`);
    await stopped;
    log('hub stopped');
    return 0;
  },
};
