// The tokens one model response (or a sum of them) used, in one shape for every agent. The agents'
// APIs split them differently (Anthropic reports uncached input beside cache writes and reads;
// OpenAI's and Google's input includes the cached part, their output the reasoning part); each parser
// turns its agent's numbers into this shape, so the prices and the totals need to know no agent.
//   input      — input tokens billed at the full input price (not read from a cache, not written to one)
//   cacheRead  — input tokens read from the prompt cache
//   cacheWrite — input tokens written to the prompt cache (Anthropic bills them above the input price)
//   output     — output tokens, reasoning included
//   reasoning  — the part of `output` spent on reasoning (shown, never billed twice)

export interface TokenCounts {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  reasoning: number;
}

export function zeroTokens(): TokenCounts {
  return { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 };
}

/** Adds `b` into `a` (a running total) and returns `a`. */
export function addTokens(a: TokenCounts, b: Readonly<TokenCounts>): TokenCounts {
  a.input += b.input;
  a.cacheRead += b.cacheRead;
  a.cacheWrite += b.cacheWrite;
  a.output += b.output;
  a.reasoning += b.reasoning;
  return a;
}

/** Every input token the model read for a response: what fills its context window. */
export function promptTokens(t: Readonly<TokenCounts>): number {
  return t.input + t.cacheRead + t.cacheWrite;
}

export function isZeroTokens(t: Readonly<TokenCounts>): boolean {
  return t.input === 0 && t.cacheRead === 0 && t.cacheWrite === 0 && t.output === 0 && t.reasoning === 0;
}
