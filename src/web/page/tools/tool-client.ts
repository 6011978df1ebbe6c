// The tools' requests, typed by method (tool-protocol.ts) and answered as values: ok, or a tool
// error { code, message } the panels show as they are. However the shell's request fails (a `res`
// error, a closed socket), the panels get one shape.
import type { ToolError } from '../../page-protocol.js';
import type { ToolMethodName, ToolMethods, ToolPushTopic, ToolPushes } from '../../tool-protocol.js';
import type { ToolsDisposable, ToolsHost } from './tools-host.js';

export type Answer<T> = { ok: T } | { error: ToolError };

function asToolError(err: unknown): ToolError {
  if (typeof err === 'object' && err !== null) {
    const e = err as { code?: unknown; message?: unknown; error?: unknown };
    if (typeof e.error === 'object' && e.error !== null) return asToolError(e.error);
    if (typeof e.code === 'string' && typeof e.message === 'string') return { code: e.code, message: e.message };
    if (typeof e.message === 'string') return { code: 'DISCONNECTED', message: e.message };
  }
  return { code: 'DISCONNECTED', message: String(err) };
}

/** The shell's answer while its socket is not open (at boot, or between reconnects). */
const OFFLINE = 'OFFLINE';
const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 2_000;
/** How long a request waits for the socket to come (back) before it says OFFLINE. */
const RETRY_FOR_MS = 60_000;

export class ToolClient {
  private offline = false;
  private readonly reconnected = new Set<() => void>();

  constructor(private readonly host: ToolsHost) {}

  /**
   * One request. Asked before the socket is open (the tools mount as the page boots) or while it is
   * down, it is asked again as the socket comes: it was never sent, so asking again is safe.
   */
  async ask<N extends ToolMethodName>(method: N, params: ToolMethods[N]['params']): Promise<Answer<ToolMethods[N]['result']>> {
    const until = Date.now() + RETRY_FOR_MS;
    for (let wait = RETRY_FIRST_MS; ; wait = Math.min(wait * 2, RETRY_MAX_MS)) {
      const answer = await this.once(method, params);
      if (!('error' in answer) || answer.error.code !== OFFLINE || Date.now() + wait > until) return answer;
      this.offline = true;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  private async once<N extends ToolMethodName>(method: N, params: ToolMethods[N]['params']): Promise<Answer<ToolMethods[N]['result']>> {
    let answer: Answer<ToolMethods[N]['result']>;
    try {
      const value = await this.host.request(method, params);
      // A shell that resolves with the whole `res` frame's error (rather than rejecting) is understood too.
      answer = typeof value === 'object' && value !== null && 'error' in value && (value as { error?: unknown }).error ? { error: asToolError(value) } : { ok: value as ToolMethods[N]['result'] };
    } catch (err) {
      answer = { error: asToolError(err) };
    }
    if (this.offline && !('error' in answer && answer.error.code === OFFLINE)) {
      // Back after a time without the socket: what was pushed meanwhile was missed; the panels read again.
      this.offline = false;
      for (const fn of [...this.reconnected]) fn();
    }
    return answer;
  }

  /** The socket came back after requests found it down: read again what pushes would have moved. */
  onReconnect(fn: () => void): ToolsDisposable {
    this.reconnected.add(fn);
    return { dispose: () => this.reconnected.delete(fn) };
  }

  on<T extends ToolPushTopic>(topic: T, fn: (data: ToolPushes[T]) => void): ToolsDisposable {
    return this.host.onPush(topic, (data) => fn(data as ToolPushes[T]));
  }
}

/** "CODE: sentence", for a status line. */
export function describeError(e: ToolError): string {
  return `${e.code}: ${e.message}`;
}
