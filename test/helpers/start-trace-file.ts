// Reads the marks every swb process on the way appends to SWB_START_TRACE's file
// (src/util/start-trace.ts: `pid ms cpu label` per line, ms on one monotonic clock for all of
// them), so a test can tell the order in which the client and the server did things.
import { existsSync, readFileSync } from 'node:fs';

export interface StartTraceMark {
  pid: number;
  ms: number;
  label: string;
}

/** The marks written so far, in the file's order (none when the file is not there yet). */
export function readStartTrace(file: string): StartTraceMark[] {
  if (!existsSync(file)) return [];
  const marks: StartTraceMark[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^(\d+) ([\d.]+) [\d.]+ (.+)$/.exec(line);
    if (m) marks.push({ pid: Number(m[1]), ms: Number(m[2]), label: m[3]! });
  }
  return marks;
}

/** The first mark with `label`, or undefined. */
export function traceMark(file: string, label: string): StartTraceMark | undefined {
  return readStartTrace(file).find((m) => m.label === label);
}
