import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE_WRAPPER, asRequired, codeCachedBundlesRun, runCodeCachedBundle } from '../../../src/util/code-cached-bundle.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A bundle as scripts/bundle.mjs writes one: CommonJS, wrapped in BUNDLE_WRAPPER. */
function writeBundle(body: string): { dir: string; path: string; cache: string } {
  const dir = mkdtempSync(join(tmpdir(), 'swb-code-cache-'));
  dirs.push(dir);
  const path = join(dir, 'bundle.cjs');
  writeFileSync(path, `${BUNDLE_WRAPPER.head}${body}${BUNDLE_WRAPPER.tail}`);
  return { dir, path, cache: join(dir, 'bundle.cache') };
}

describe('runCodeCachedBundle', () => {
  it('runs on this node', () => {
    expect(codeCachedBundlesRun()).toBe(true);
  });

  it('runs a bundle as CommonJS with its own file, require() and import.meta.url, and takes the cache it wrote', () => {
    const b = writeBundle(`
      const { basename } = require('node:path');
      exports.file = basename(__filename);
      exports.dir = __dirname;
      exports.url = __swbImportMetaUrl;
      exports.square = (x) => x * x;
    `);
    const first = runCodeCachedBundle<{ file: string; dir: string; url: string; square(x: number): number }>(b.path, b.cache);
    expect(first.cache).toBe('missing');
    expect(first.exports.file).toBe('bundle.cjs');
    expect(first.exports.dir).toBe(b.dir);
    expect(first.exports.url).toBe(pathToFileURL(b.path).href);
    expect(first.exports.square(7)).toBe(49);
    writeFileSync(b.cache, first.script.createCachedData());
    const second = runCodeCachedBundle<{ square(x: number): number }>(b.path, b.cache);
    expect(second.cache).toBe('used');
    expect(second.exports.square(9)).toBe(81);
  });

  it('reads the bundle one byte a character, as the build writes it (Latin-1): é and £ are themselves', () => {
    const b = writeBundle('');
    writeFileSync(b.path, `${BUNDLE_WRAPPER.head}exports.text = 'café £5';${BUNDLE_WRAPPER.tail}`, 'latin1');
    expect(runCodeCachedBundle<{ text: string }>(b.path, null).exports.text).toBe('caf\u00e9 \u00a35');
  });

  it('compiles without a cache V8 refuses (another source), and says so', () => {
    const a = writeBundle('exports.v = 1;');
    writeFileSync(a.cache, runCodeCachedBundle(a.path, null).script.createCachedData());
    const other = writeBundle('exports.v = 2; exports.more = "a different source";');
    const run = runCodeCachedBundle<{ v: number }>(other.path, a.cache);
    expect(run.cache).toBe('rejected');
    expect(run.exports.v).toBe(2);
  });

  it('gives out what the caller preloaded to require(), and import() reaches Node\'s own loader', async () => {
    const b = writeBundle(`
      exports.pre = require('an-es-only-package').answer;
      exports.load = () => import('node:path').then((m) => m.sep);
    `);
    const run = runCodeCachedBundle<{ pre: number; load(): Promise<string> }>(b.path, null, { 'an-es-only-package': asRequired({ default: { answer: 42 } }) });
    expect(run.exports.pre).toBe(42);
    expect(await run.exports.load()).toBe('/');
  });

  it('refuses a file the build did not wrap', () => {
    const dir = mkdtempSync(join(tmpdir(), 'swb-code-cache-'));
    dirs.push(dir);
    const path = join(dir, 'plain.cjs');
    writeFileSync(path, 'module.exports = 1;');
    expect(() => runCodeCachedBundle(path, null)).toThrow(/not a bundle written for this loader/);
  });
});

describe('asRequired', () => {
  it('merges a default export object and the named exports, as esbuild\'s require() interop reads them', () => {
    const merged = asRequired({ default: { Node: 'node', Config: 'config' }, Align: 'align' });
    expect(merged).toMatchObject({ Node: 'node', Config: 'config', Align: 'align' });
  });
});
