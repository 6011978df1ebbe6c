// Ink-style key records for reducer tests.
import type { InkKeyLike } from '../../../src/config/match-ink-input.js';
import { NO_KEY } from '../../../src/app/key-burst.js';

export function key(patch: Partial<InkKeyLike> = {}): InkKeyLike {
  return { ...NO_KEY, ...patch };
}
