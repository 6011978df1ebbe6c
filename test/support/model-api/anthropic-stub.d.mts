// Types for anthropic-stub.mjs (used from TypeScript tests).
export interface StubContent {
  type: 'text' | 'tool_use';
  text?: string;
  name?: string;
  input?: Record<string, unknown>;
}
export interface StubTurn {
  match?: string;
  delayMs?: number;
  content?: StubContent[];
  afterTool?: string;
  afterToolDelayMs?: number;
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
}
export interface AnthropicStub {
  port: number;
  url: string;
  requests: StubRequest[];
  close(): Promise<void>;
}
export function startAnthropicStub(opts?: { script?: StubScript; port?: number; logFile?: string }): Promise<AnthropicStub>;
