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

export class ToolClient {
  constructor(private readonly host: ToolsHost) {}

  get readOnly(): boolean {
    return this.host.readOnly;
  }

  async ask<N extends ToolMethodName>(method: N, params: ToolMethods[N]['params']): Promise<Answer<ToolMethods[N]['result']>> {
    try {
      const value = await this.host.request(method, params);
      // A shell that resolves with the whole `res` frame's error (rather than rejecting) is understood too.
      if (typeof value === 'object' && value !== null && 'error' in value && (value as { error?: unknown }).error) return { error: asToolError(value) };
      return { ok: value as ToolMethods[N]['result'] };
    } catch (err) {
      return { error: asToolError(err) };
    }
  }

  on<T extends ToolPushTopic>(topic: T, fn: (data: ToolPushes[T]) => void): ToolsDisposable {
    return this.host.onPush(topic, (data) => fn(data as ToolPushes[T]));
  }
}

/** "CODE: sentence", for a status line. */
export function describeError(e: ToolError): string {
  return `${e.code}: ${e.message}`;
}
