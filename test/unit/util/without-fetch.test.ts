import { describe, expect, it } from 'vitest';
import { withoutFetch } from '../../../src/util/without-fetch.js';

describe('withoutFetch', () => {
  it('hides fetch while the load runs and puts back the very same property after', async () => {
    const before = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
    let seen: string | undefined;
    const out = await withoutFetch(async () => {
      seen = typeof fetch;
      await Promise.resolve();
      return 42;
    });
    expect(seen).toBe('undefined');
    expect(out).toBe(42);
    expect(Object.getOwnPropertyDescriptor(globalThis, 'fetch')).toEqual(before);
    expect(typeof fetch).toBe('function');
  });

  it('puts fetch back when the load fails', async () => {
    await expect(withoutFetch(() => Promise.reject(new Error('no module')))).rejects.toThrow('no module');
    expect(typeof fetch).toBe('function');
  });

  it('lets yoga-layout load and lay out without it', async () => {
    const { default: Yoga } = await withoutFetch(() => import('yoga-layout'));
    const node = Yoga.Node.create();
    node.setWidth(10);
    node.calculateLayout(undefined, undefined);
    expect(node.getComputedWidth()).toBe(10);
    node.free();
  });
});
