// Types for anthropic-stub.mjs (used from TypeScript tests).
export interface StubContent {
  type: 'text' | 'tool_use';
  text?: string;
  name?: string;
  input?: Record<string, unknown>;
}
export interface StubTurn {
  match?: string;
  /** Regex on all the newest user message's text, <system-reminder> blocks included (a Stop hook's feedback). */
  matchReminder?: string;
  delayMs?: number;
  /** Stream each text over this long (in 20 deltas) once the delay has passed. */
  streamMs?: number;
  /** Answer this many requests for the turn with HTTP 529 overloaded_error before the real answer. */
  failFirst?: number;
  content?: StubContent[];
  afterTool?: string;
  afterToolDelayMs?: number;
  /** One answer per tool round (steps[0] answers the first tool_result); strings may use {{N}}. */
  steps?: StubStep[];
}
export interface StubStep {
  /** Regex on the newest tool_result's text; its groups fill "{{N}}" in the content. */
  capture?: string;
  delayMs?: number;
  content?: StubContent[];
}
export interface StubScript {
  turns?: StubTurn[];
  default?: { delayMs?: number; content?: StubContent[] };
}
export interface StubRequest {
  at: number;
  method: string;
  path: string;
  model?: string;
  stream: boolean;
  lastUser: string;
  /** The messages the request carries that have typed text, as "role: text" (each cut to 200 characters). */
  history: string[];
  /** The names of the tools the request offers the model (empty for the CLI's side requests). */
  tools: string[];
  /** Every text block of the newest user message, <system-reminder> blocks included (each cut to 2000 characters). */
  userTexts: string[];
  /** Every mcp__SERVER__TOOL name the request mentions (its tools list, or a deferred-tools list in its text). */
  mcpTools: string[];
  /** The newest tool_result's text, when the request answers a tool call. */
  toolResult?: string;
  /** The usage a /v1/messages request was handed (the final one, as a stream's message_delta ends it). */
  usage?: { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number; output_tokens: number };
}
export interface AnthropicStub {
  port: number;
  url: string;
  requests: StubRequest[];
  /**
   * When each streamed answer to a main request finished (ms epoch), and whether it called a tool;
   * `failed` for a failFirst error answered instead.
   */
  answered: Array<{ at: number; lastUser: string; toolUse: boolean; failed?: true }>;
  /** The same for the CLI's side requests (titles, a compaction's summary). */
  sideAnswered: Array<{ at: number; lastUser: string; toolUse: boolean }>;
  /** When a streamed answer to a main request sent its first content (ms epoch): its answer has begun. */
  answering: Array<{ at: number; lastUser: string }>;
  close(): Promise<void>;
}
export function startAnthropicStub(opts?: { script?: StubScript; port?: number; logFile?: string }): Promise<AnthropicStub>;
