// Types for openai-responses-stub.mjs (used from TypeScript tests).
export interface ResponsesOutput {
  type: 'text' | 'function_call';
  text?: string;
  name?: string;
  /** A function_call's namespace: Codex offers an MCP server's tools as namespace `mcp__<server>`. */
  namespace?: string;
  arguments?: Record<string, unknown>;
}
export interface ResponsesTurn {
  match?: string;
  delayMs?: number;
  output?: ResponsesOutput[];
  /** One answer per tool round of this turn; `capture` is a regex on the newest tool output, "{{N}}" its groups ("{{#N}}" alone: as a number). */
  steps?: Array<{ capture?: string; delayMs?: number; output?: ResponsesOutput[] }>;
  afterTool?: string;
  afterToolDelayMs?: number;
}
export interface ResponsesScript {
  turns?: ResponsesTurn[];
  default?: { delayMs?: number; output?: ResponsesOutput[] };
}
export interface ResponsesRequest {
  at: number;
  method: string;
  path: string;
  model?: string;
  stream: boolean;
  lastUser: string;
  /** The newest function_call_output's text, when the request carries one. */
  toolResult?: string;
  tools: string[];
  /** The function names inside each namespace tool of the request, by namespace. */
  namespaceTools: Record<string, string[]>;
  /** What a model request was handed: its usage and the plan windows sent as x-codex-* headers. */
  usage?: { input_tokens: number; input_tokens_details: { cached_tokens: number }; output_tokens: number; output_tokens_details: { reasoning_tokens: number }; total_tokens: number };
  rateLimits?: Record<'primary' | 'secondary', { used_percent: number; window_minutes: number; reset_at: number }>;
}
export interface ResponsesStub {
  port: number;
  url: string;
  requests: ResponsesRequest[];
  /** When each streamed answer to a main request finished (ms epoch), and whether it called a tool. */
  answered: Array<{ at: number; lastUser: string; toolUse: boolean }>;
  close(): Promise<void>;
}
export function startResponsesStub(opts?: { script?: ResponsesScript; port?: number; logFile?: string }): Promise<ResponsesStub>;
