// Whether an agent's session had turns, read from the transcript the agent itself keeps (its
// profile's `resume.transcript`, e.g. Claude Code's `${CLAUDE_CONFIG_DIR:-~/.claude}/projects/*/{id}.jsonl`).
// swb asks this before giving up on a conversation: a resume the agent refused is started again
// as a new conversation only when the old one has nothing to lose (no transcript, or one without a turn).
// The agent's own file is the truth here, not anything swb saw: turns taken while swb was not
// watching (the agent run by hand with --resume) count too.
import { closeSync, constants, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** At most this many directory entries are looked at per `*` segment (a transcript folder can be large). */
const MAX_ENTRIES_PER_SEGMENT = 4096;
/** At most this much of a transcript is searched for a turn marker (a first turn comes early in it). */
export const MAX_MARKER_SCAN_BYTES = 16 * 1024 * 1024;

/**
 * The template with `{id}` (`{id:N}`: its first N characters, as Gemini CLI names its files), `~`
 * and `${VAR}` / `${VAR:-default}` expanded (the default may itself start with `~`). An unset
 * variable without a default expands to nothing.
 */
export function expandTranscriptPath(template: string, id: string, env: Readonly<Record<string, string | undefined>>, home = homedir()): string {
  const tilde = (s: string) => (s === '~' || s.startsWith('~/') ? home + s.slice(1) : s);
  const vars = template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback: string | undefined) => {
    const v = env[name];
    return v !== undefined && v !== '' ? v : tilde(fallback ?? '');
  });
  return tilde(vars)
    .replaceAll('{id}', id)
    .replace(/\{id:(\d{1,3})\}/g, (_m, n: string) => id.slice(0, Number(n)));
}

/** The existing files the expanded path names (`*` matches within one segment), bounded. */
export function transcriptFiles(path: string): string[] {
  const segments = path.split('/');
  let found: string[] = [path.startsWith('/') ? '/' : '.'];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    const next: string[] = [];
    if (!segment.includes('*')) {
      for (const dir of found) next.push(join(dir, segment));
    } else {
      const pattern = new RegExp(`^${segment.split('*').map(escapeRegExp).join('[^/]*')}$`);
      for (const dir of found) {
        let entries: string[];
        try {
          entries = readdirSync(dir).slice(0, MAX_ENTRIES_PER_SEGMENT);
        } catch {
          continue;
        }
        for (const e of entries) if (pattern.test(e)) next.push(join(dir, e));
      }
    }
    found = next;
    if (found.length === 0) return [];
  }
  return found.filter((f) => {
    try {
      return statSync(f).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * Whether session `id` had turns: a transcript of it is there and holds `turnMarker` (without a
 * marker: is not empty). Searched without following a symlink, at most MAX_MARKER_SCAN_BYTES a file.
 */
export function sessionHadTurns(template: string, id: string, env: Readonly<Record<string, string | undefined>> = process.env, turnMarker?: string): boolean {
  // `~` is the agent's home: the HOME its row runs with, when that is given.
  return transcriptFiles(expandTranscriptPath(template, id, env, env.HOME || homedir())).some((f) => {
    try {
      if (turnMarker === undefined) return statSync(f).size > 0;
      return fileHolds(f, Buffer.from(turnMarker, 'utf8'));
    } catch {
      return false;
    }
  });
}

/** Whether the file's first MAX_MARKER_SCAN_BYTES hold `needle`, read in chunks (a match may span two). */
function fileHolds(path: string, needle: Buffer): boolean {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let carry = Buffer.alloc(0);
    for (let read = 0; read < MAX_MARKER_SCAN_BYTES; ) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return false;
      read += n;
      const window = Buffer.concat([carry, chunk.subarray(0, n)]);
      if (window.includes(needle)) return true;
      carry = window.subarray(Math.max(0, window.length - needle.length + 1));
    }
    return false;
  } finally {
    closeSync(fd);
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
