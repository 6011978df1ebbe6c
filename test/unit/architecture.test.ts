// Guards the layering DESIGN.md §2 describes (STYLE §8): imports that run only downward, no
// Ink/React below the UI, nothing in src/ reaching up into components/ except the composition root,
// and the agent-side paths (`swb send`, the thin client) staying free of the hub, Ink, React,
// string-width and zod so they start fast, in the sources and (for `swb send`) in the bundle
// bin/swb.js runs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Static imports (those that load something), plus dynamic ones unless `staticOnly`. */
function importsOf(file: string, staticOnly = false): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  // `import type` is erased by tsc: it loads nothing.
  const re = staticOnly ? /^\s*import\s(?!type\s)[^;]*?from\s+'([^']+)'/gm : /(?:from\s+|import\()\s*'([^']+)'/g;
  return [...text.matchAll(re)].map((m) => m[1]!);
}

function resolveLocal(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const js = relative(root, resolve(root, dirname(from), spec));
  return js.replace(/\.js$/, '.ts');
}

describe('architecture', () => {
  it('keeps Ink and React out of src/ except the UI hooks and store in src/app/ and the client session', () => {
    const offenders = sourceFiles('src')
      .filter((f) => !f.startsWith(join('src', 'app')) && f !== join('src', 'server', 'client-session.ts'))
      .filter((f) => importsOf(f).some((s) => s === 'ink' || s === 'react' || s.startsWith('ink-')));
    expect(offenders).toEqual([]);
  });

  it('keeps the server side (src/app, src/server, src/supervisor, src/terminal, src/mcp, components) from importing the command line (src/cli/)', () => {
    const serverSide = ['src/app', 'src/server', 'src/supervisor', 'src/terminal', 'src/mcp', 'components'].flatMap((d) => sourceFiles(d));
    const offenders = serverSide.flatMap((f) =>
      importsOf(f)
        .map((spec) => resolveLocal(f, spec))
        .filter((target): target is string => target !== null && target.startsWith(join('src', 'cli') + '/'))
        .map((target) => `${f} -> ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('imports only downward: every import goes to a folder lower in the house than its own (no arrow runs up, no circle between folders)', () => {
    // The floors, ground first. A folder imports only folders before it here. protocol holds the
    // wire's names (handles, handle@node); text is pure functions over strings; util is the
    // process's plumbing (its log sanitizes through text); then the state below the hub (the
    // store, rows, the files an operator writes, usage (it reads its config section's shapes),
    // reservations, federation, worktrees, agents);
    // then the hub, the agents' runtime, each client's UI and the clients; the entries on top.
    const floors = [
      'src/protocol', 'src/text', 'src/util', 'src/store', 'src/rows', 'src/config', 'src/usage', 'src/notify', 'src/resources', 'src/federation',
      'src/worktree', 'src/agents', 'src/hub', 'src/supervisor', 'src/app', 'src/terminal', 'src/client', 'src/mcp', 'src/web',
      'components', 'src/cli', 'src/server', 'bin',
    ];
    const floorOf = (file: string): number => floors.findIndex((f) => file.startsWith(`${f}/`));
    const files = [...sourceFiles('src'), ...sourceFiles('components'), ...sourceFiles('bin')];
    expect(files.filter((f) => floorOf(f) < 0)).toEqual([]);
    const upward = files.flatMap((f) =>
      importsOf(f)
        .map((spec) => resolveLocal(f, spec))
        .filter((target): target is string => target !== null && floorOf(target) > floorOf(f))
        .map((target) => `${f} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('never imports components/ from src/, except in the composition root', () => {
    const offenders = sourceFiles('src')
      .filter((f) => f !== join('src', 'server', 'client-session.ts'))
      .filter((f) => importsOf(f).some((s) => s.includes('components/')));
    expect(offenders).toEqual([]);
  });

  it('loads neither the hub, the store, Ink, React, string-width nor zod when an agent runs `swb send`', () => {
    const seen = staticClosure(['src/cli/main.ts', 'src/cli/send.ts']);
    const forbidden = [...seen].filter(
      (f) =>
        f.startsWith('src/hub/hub') ||
        f.startsWith('src/store/') ||
        f === 'ink' ||
        f === 'react' ||
        f === 'string-width' ||
        f === 'node:crypto' ||
        f === 'better-sqlite3' ||
        f === 'zod' ||
        f.startsWith('zod/') ||
        f.startsWith('@nats-io/') ||
        f.startsWith('src/federation/nats-link') ||
        f.startsWith('src/federation/presence'),
    );
    expect(forbidden).toEqual([]);
    expect(seen.has('src/client/hub-client.ts')).toBe(true);
  });

  it('keeps the thin client (`swb`, `swb attach`) free of Ink, React, string-width and zod', () => {
    const seen = staticClosure(['src/cli/main.ts', 'src/client/attach-client.ts']);
    expect([...seen].filter((f) => f === 'ink' || f === 'react' || f === 'string-width' || f.startsWith('src/text/ink-') || f === 'zod')).toEqual([]);
  });

  it('keeps the trust question a server launch asks free of zod: a trusted or absent config costs a read and a hash', () => {
    const seen = staticClosure(['src/client/config-trust-prompt.ts']);
    expect([...seen].filter((f) => f === 'zod' || f.startsWith('zod/') || f === 'ink' || f === 'react')).toEqual([]);
    expect(seen.has('src/config/config-trust-store.ts')).toBe(true);
  });

  it('bundles `swb send` without zod: no chunk it loads holds zod code (checks dist/: npm run build first)', () => {
    const dir = join(root, 'dist', 'cli-bundle');
    const entry = join(dir, 'cli.mjs');
    if (!existsSync(entry)) throw new Error(`no ${relative(root, entry)}: run npm run build first`);
    /** The files node loads from these: each, and what it imports statically, all the way down. */
    const reach = (files: string[]): Set<string> => {
      const loaded = new Set<string>();
      const visit = (file: string) => {
        if (loaded.has(file)) return;
        loaded.add(file);
        for (const m of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\s[^;]*?from\s*"(\.[^"]+)"|^\s*import\s*"(\.[^"]+)"/gm)) {
          visit(resolve(dirname(file), (m[1] ?? m[2])!));
        }
      };
      files.forEach(visit);
      return loaded;
    };
    const start = reach([entry]);
    /** A command's chunk: the command table imports it when the command runs. */
    const commandChunk = (name: string): string => {
      const re = new RegExp(`\\b${name}: \\{[^}]*?import\\("(\\.[^"]+)"\\)`, 'g');
      const found = [...start].flatMap((f) => [...readFileSync(f, 'utf8').matchAll(re)].map((m) => resolve(dirname(f), m[1]!)));
      expect(found, `the ${name} command's chunk`).toHaveLength(1);
      return found[0]!;
    };
    // zod's core names every schema class with $constructor("$Zod...").
    const withZod = (files: Set<string>) => [...files].filter((f) => readFileSync(f, 'utf8').includes('"$ZodType"')).map((f) => relative(dir, f));
    const send = reach([entry, commandChunk('send')]);
    expect(withZod(send)).toEqual([]);
    expect([...send].some((f) => readFileSync(f, 'utf8').includes('"mail.send"'))).toBe(true);
    // The marker is real: `swb hub` (which validates params) does load zod.
    expect(withZod(reach([entry, commandChunk('hub')])).length).toBeGreaterThan(0);
  });
});

/** Every module (local files as src/….ts, packages by name) the entries load through static imports. */
function staticClosure(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of importsOf(file, true)) {
      const local = resolveLocal(file, spec);
      if (local) visit(local);
      else seen.add(spec);
    }
  };
  for (const entry of entries) visit(entry);
  return seen;
}
