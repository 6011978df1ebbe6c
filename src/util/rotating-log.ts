// An append-only log file (0600) that never grows without bound: past `maxBytes` the file is
// renamed to FILE.1 (the previous FILE.1 is dropped) and a new one begins, so a flood of lines
// costs at most twice `maxBytes` of disk. A line is cut at `maxLineBytes`. Writing never throws:
// logging must not take down what it logs.
//
// Every line passes src/text/log-line.ts here, at the one place all of server.log and hub.log is
// written, so no call site can forget to sanitize what came from a file or a peer (issue #34.3).
import { appendFileSync, renameSync, statSync } from 'node:fs';
import { logLine } from '../text/log-line.js';

export class RotatingLog {
  private size: number;

  constructor(
    readonly file: string,
    private readonly maxBytes = 1024 * 1024,
    private readonly maxLineBytes = 4096,
  ) {
    try {
      this.size = statSync(file).size;
    } catch {
      this.size = 0;
    }
  }

  append(line: string): void {
    const text = `${logLine(line, this.maxLineBytes)}\n`;
    const bytes = Buffer.byteLength(text);
    try {
      if (this.size + bytes > this.maxBytes && this.size > 0) {
        renameSync(this.file, `${this.file}.1`);
        this.size = 0;
      }
      appendFileSync(this.file, text, { mode: 0o600 });
      this.size += bytes;
    } catch {
      // a full disk or a removed dir: the line is lost, the hub goes on
    }
  }
}
