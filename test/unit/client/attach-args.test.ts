// The thin client's command line: --workspace and --fresh are its own, the rest goes to the
// server's dashboard plan; a client that moves to a --workspace DIR keeps --config FILE meaning
// the file seen from where the operator typed it.
import { describe, expect, test } from 'vitest';
import { configFromHere, splitArgs } from '../../../src/client/dashboard-head-start.js';

describe('splitArgs', () => {
  test('keeps --workspace and --fresh for the client and hands the rest (with --config) to the dashboard', () => {
    expect(splitArgs(['--workspace=../app', '--fresh', '--config', 'my.json', 'a=sh', '--layout', 'grid'])).toEqual({
      workspace: '../app',
      fresh: true,
      config: 'my.json',
      hello: ['--config', 'my.json', 'a=sh', '--layout', 'grid'],
    });
    expect(splitArgs(['--workspace'])).toBe('--workspace needs a value');
  });
});

describe('configFromHere', () => {
  test('makes each --config value absolute from the given directory, and leaves everything after -- alone', () => {
    expect(configFromHere(['--config', 'my.json', 'a=sh', '--config', '/etc/x.json', '--', '--config', 'row-arg'], '/home/op/src')).toEqual([
      '--config',
      '/home/op/src/my.json',
      'a=sh',
      '--config',
      '/etc/x.json',
      '--',
      '--config',
      'row-arg',
    ]);
  });
});
