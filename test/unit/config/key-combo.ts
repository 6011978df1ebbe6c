// A key string parsed into its chord, for tests that need a chord and trust the grammar.
import { parseKeySpec, type KeyCombo } from '../../../src/config/key-grammar.js';

export function combo(spec: string): KeyCombo {
  const r = parseKeySpec(spec);
  if (!r.ok) throw new Error(`${spec}: ${r.problem}`);
  return r.combo;
}
