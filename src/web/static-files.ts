// The page's files, served from dist/web/ (the esbuild bundle: no CDN, nothing fetched at run time).
// What may be served is fixed when the listener starts: the files found there then, whose names are
// plain (letters, digits, '.', '_', '-', one folder deep) and whose extension has a known content
// type. A request is looked up in that table by its exact path, so '..', encoded slashes, symlinks
// and directories simply find nothing (404): no traversal, no listing. `/` is index.html.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** More than a page bundle could need; a stray huge file is left out rather than held in memory. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
const MAX_FILES = 512;

export interface StaticFile {
  body: Buffer;
  contentType: string;
}

export class StaticFiles {
  private readonly files = new Map<string, StaticFile>();

  /** Reads the allowed files under `dir` (missing dir: nothing is served but the 404s). */
  constructor(dir: string) {
    this.scan(dir, '', 0);
  }

  private scan(dir: string, prefix: string, depth: number): void {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (this.files.size >= MAX_FILES || !PLAIN_NAME.test(name)) continue;
      const full = join(dir, name);
      // lstat: a symlink is neither a file nor a folder here, so nothing outside the folder is reachable.
      const st = lstatSync(full, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) {
        if (depth === 0) this.scan(full, `${prefix}/${name}`, depth + 1);
        continue;
      }
      const contentType = CONTENT_TYPES[extname(name).toLowerCase()];
      if (!st.isFile() || !contentType || st.size > MAX_FILE_BYTES) continue;
      this.files.set(`${prefix}/${name}`, { body: readFileSync(full), contentType });
    }
  }

  /** The file for a URL path (without its query), or undefined. */
  lookup(pathname: string): StaticFile | undefined {
    return this.files.get(pathname === '/' ? '/index.html' : pathname);
  }

  get size(): number {
    return this.files.size;
  }
}
