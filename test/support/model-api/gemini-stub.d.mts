// Types for gemini-stub.mjs (used from TypeScript tests).
export interface GeminiPart {
  text?: string;
  functionCall?: { name: string; args?: Record<string, unknown> };
}
export interface GeminiTurn {
  match?: string;
  delayMs?: number;
  parts?: GeminiPart[];
  /** One answer per tool round of this turn; `capture` is a regex on the newest functionResponse's output, "{{N}}" its groups. */
  steps?: Array<{ capture?: string; delayMs?: number; parts?: GeminiPart[] }>;
  afterTool?: string;
  afterToolDelayMs?: number;
}
export interface GeminiScript {
  turns?: GeminiTurn[];
  default?: { delayMs?: number; parts?: GeminiPart[] };
}
export interface GeminiRequest {
  at: number;
  method: string;
  path: string;
  action: string;
  side: boolean;
  lastUser: string;
  /** The conversation the request carries: "role: text" per content with typed text (the CLI's session context left out). */
  history: string[];
  /** The newest functionResponse's output text (up to 4000 chars), when the newest user turn is one. */
  toolResult?: string;
  /** The usageMetadata handed out with the answer (generate requests). */
  usage?: ReturnType<typeof usageFor>;
}
export interface GeminiStub {
  port: number;
  url: string;
  requests: GeminiRequest[];
  /** When each streamed answer to a main request finished (ms epoch), and whether it called a tool. */
  answered: Array<{ at: number; lastUser: string; toolUse: boolean }>;
  close(): Promise<void>;
}
export function startGeminiStub(opts?: { script?: GeminiScript; port?: number; logFile?: string }): Promise<GeminiStub>;
/** The usageMetadata the stand-in reports for a request and the parts it answers with. */
export function usageFor(body: unknown, parts: GeminiPart[]): { promptTokenCount: number; candidatesTokenCount: number; cachedContentTokenCount?: number; thoughtsTokenCount: number; totalTokenCount: number };
