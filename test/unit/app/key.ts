// Ink-style key records for reducer tests.
import type { InkKeyLike } from '../../../src/config/keymap.js';

const none: InkKeyLike = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
};

export function key(patch: Partial<InkKeyLike> = {}): InkKeyLike {
  return { ...none, ...patch };
}
