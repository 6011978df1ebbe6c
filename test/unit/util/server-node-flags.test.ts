// The server's V8 flags live in two places: SERVER_NODE_FLAGS (the client's launch and the code
// cache's build) and bin/swb's `swb server` line. V8 refuses a code cache made under other flags, so
// the two must be the same words; and each must be a flag this node accepts (a refused one stops the
// server before it starts).
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../../src/util/server-node-flags.js';

const root = join(import.meta.dirname, '..', '..', '..');

describe('SERVER_NODE_FLAGS', () => {
  it('are the flags bin/swb gives `swb server`', () => {
    const script = readFileSync(join(root, 'bin', 'swb'), 'utf8');
    const line = /^\s*server\) v8flags='([^']*)' ;;$/m.exec(script);
    expect(line).not.toBeNull();
    expect(line![1]!.split(' ')).toEqual([...SERVER_NODE_FLAGS]);
  });

  it('are accepted by this node, and cap the heap’s growth without the memory reducer', () => {
    const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('ok');
    expect(SERVER_NODE_FLAGS).toContain('--no-memory-reducer');
    expect(SERVER_NODE_FLAGS.some((f) => f.startsWith('--heap-growing-percent='))).toBe(true);
  });
});
