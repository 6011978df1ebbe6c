import { describe, expect, it } from 'vitest';
import {
  ALL_NODES,
  isRemoteAddress,
  isValidNodeName,
  NODE_NAME_PATTERN,
  parseRemoteAddress,
  remoteAddress,
} from '../../../src/protocol/remote-address.js';

describe('parseRemoteAddress', () => {
  it('splits handle@node into its handle and node', () => {
    expect(parseRemoteAddress('bob@build')).toEqual({ handle: 'bob', node: 'build' });
    expect(parseRemoteAddress('claude.1@laptop_2')).toEqual({ handle: 'claude.1', node: 'laptop_2' });
    expect(parseRemoteAddress('a@b-c')).toEqual({ handle: 'a', node: 'b-c' });
  });

  it('reads all@* as every node', () => {
    expect(ALL_NODES).toBe('*');
    expect(parseRemoteAddress('all@*')).toEqual({ handle: 'all', node: '*' });
  });

  it('refuses anything without exactly one @ between a handle and a node', () => {
    for (const bad of ['bob', '@build', 'bob@', 'a@b@c', '@', '@@', 'bob@@build']) expect(parseRemoteAddress(bad), bad).toBeNull();
  });

  it('refuses a node name with a dot (a NATS subject token may not hold one), and other bad node names', () => {
    for (const bad of ['bob@build.example.com', 'bob@a.b', 'bob@-lead', 'bob@sp ace', 'bob@ümlaut', `bob@${'n'.repeat(65)}`, 'bob@**', 'bob@a*']) {
      expect(parseRemoteAddress(bad), bad).toBeNull();
    }
    expect(parseRemoteAddress(`bob@${'n'.repeat(64)}`)).toEqual({ handle: 'bob', node: 'n'.repeat(64) });
  });

  it('refuses a bad handle before the @', () => {
    for (const bad of ['-bob@build', 'b b@build', `${'h'.repeat(65)}@build`]) expect(parseRemoteAddress(bad), bad).toBeNull();
    // Dots are fine in a handle, just not in a node name.
    expect(parseRemoteAddress('.hidden@build')).toEqual({ handle: '.hidden', node: 'build' });
  });
});

describe('node names', () => {
  it('follows the handle rule minus the dot: 1-64 of A-Z a-z 0-9 _ -, not starting with -', () => {
    for (const good of ['a', 'A', '0', '_x', 'build-01', 'x'.repeat(64)]) expect(isValidNodeName(good), good).toBe(true);
    for (const bad of ['', '-a', 'a.b', '.a', 'a b', 'x'.repeat(65), '*', 'a/b', 'a>b']) expect(isValidNodeName(bad), bad).toBe(false);
    expect(NODE_NAME_PATTERN.test('a.b')).toBe(false);
  });
});

describe('isRemoteAddress and remoteAddress', () => {
  it('tells a remote address by its @ and builds handle@node', () => {
    expect(isRemoteAddress('bob@build')).toBe(true);
    expect(isRemoteAddress('all@*')).toBe(true);
    expect(isRemoteAddress('bob')).toBe(false);
    expect(isRemoteAddress('all')).toBe(false);
    expect(remoteAddress('bob', 'build')).toBe('bob@build');
    expect(parseRemoteAddress(remoteAddress('bob', 'build'))).toEqual({ handle: 'bob', node: 'build' });
  });
});
