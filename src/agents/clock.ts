// The time source injected into the state tracker and the wake controller, so their timing rules
// (quiet time, debounce, verify timeouts, re-nudge, loop guard) are tested with a fake clock.
import { type Disposable, toDisposable } from '../util/lifecycle.js';

export interface Clock {
  /** Milliseconds on a monotonic-enough scale; only differences matter. */
  now(): number;
  /** Runs `fn` once after `ms`; disposing the result cancels it. */
  setTimer(fn: () => void, ms: number): Disposable;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, ms));
    handle.unref?.();
    return toDisposable(() => clearTimeout(handle));
  },
};
