// Which terminal modes a row's program switched on. xterm exposes most of them in
// `terminal.modes`; the rest (cursor visibility, mouse encoding, kitty keyboard flags,
// modifyOtherKeys) are observed here by watching the sequences pass through the parser. The
// observers return false so xterm still applies each sequence itself. Used on attach/detach to
// put the operator's terminal into, and back out of, the modes the program expects.
// The painter reads the modes on every paint of the attached row (each keystroke's echo), and
// building them through xterm's API allocates and copies on every read, so they are cached until a
// sequence that can change any of them passes (xterm changes these modes only in the handlers
// watched here).
import type { IDisposable, Terminal } from '@xterm/headless';
import type { Disposable } from '../util/lifecycle.js';

export type MouseTracking = 'none' | 'x10' | 'vt200' | 'drag' | 'any';
export type MouseEncoding = 'default' | 'utf8' | 'sgr' | 'urxvt' | 'sgr-pixels';

export interface ActiveModes {
  bracketedPaste: boolean;
  mouseTracking: MouseTracking;
  mouseEncoding: MouseEncoding;
  /** Focus in/out reports (DECSET 1004). */
  focusReporting: boolean;
  /** DECCKM: arrows send SS3 sequences. */
  applicationCursorKeys: boolean;
  /** DECKPAM / DECNKM. */
  applicationKeypad: boolean;
  cursorVisible: boolean;
  alternateScreen: boolean;
  /** DECSET 2026: the program brackets its redraws. */
  synchronizedOutput: boolean;
  /** Kitty keyboard protocol flags currently pushed (0 = off). */
  kittyKeyboardFlags: number;
  /** xterm modifyOtherKeys level (CSI > 4 ; n m), 0 = off. */
  modifyOtherKeys: number;
}

const MOUSE_ENCODINGS: ReadonlyMap<number, MouseEncoding> = new Map([
  [1005, 'utf8'],
  [1006, 'sgr'],
  [1015, 'urxvt'],
  [1016, 'sgr-pixels'],
]);

/** Kitty's flag stack is bounded; keep ours bounded too. */
const KITTY_STACK_LIMIT = 64;

function first(param: number | number[] | undefined, fallback: number): number {
  const value = Array.isArray(param) ? param[0] : param;
  return value === undefined || value < 0 ? fallback : value;
}

export class ModeTracker implements Disposable {
  private cursorVisible = true;
  private mouseEncoding: MouseEncoding = 'default';
  private kittyStack: number[] = [];
  private modifyOtherKeys = 0;
  private readonly handlers: IDisposable[];
  /** The modes as last read; null after a sequence that may have changed them. */
  private cached: ActiveModes | null = null;

  constructor(private readonly terminal: Terminal) {
    const parser = terminal.parser;
    this.handlers = [
      parser.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => this.decPrivate(params, true)),
      parser.registerCsiHandler({ prefix: '?', final: 'l' }, (params) => this.decPrivate(params, false)),
      parser.registerCsiHandler({ intermediates: '!', final: 'p' }, () => this.softReset()),
      parser.registerEscHandler({ final: 'c' }, () => this.fullReset()),
      // DECKPAM / DECKPNM: xterm applies them; only the cache has to know.
      parser.registerEscHandler({ final: '=' }, () => this.invalidate()),
      parser.registerEscHandler({ final: '>' }, () => this.invalidate()),
      parser.registerCsiHandler({ prefix: '>', final: 'u' }, (params) => this.kittyPush(params)),
      parser.registerCsiHandler({ prefix: '<', final: 'u' }, (params) => this.kittyPop(params)),
      parser.registerCsiHandler({ prefix: '=', final: 'u' }, (params) => this.kittySet(params)),
      parser.registerCsiHandler({ prefix: '>', final: 'm' }, (params) => this.xtermKeyModifiers(params)),
    ];
  }

  get modes(): ActiveModes {
    return (this.cached ??= this.readModes());
  }

  private readModes(): ActiveModes {
    const m = this.terminal.modes;
    return {
      bracketedPaste: m.bracketedPasteMode,
      mouseTracking: m.mouseTrackingMode,
      mouseEncoding: this.mouseEncoding,
      focusReporting: m.sendFocusMode,
      applicationCursorKeys: m.applicationCursorKeysMode,
      applicationKeypad: m.applicationKeypadMode,
      cursorVisible: this.cursorVisible,
      alternateScreen: this.terminal.buffer.active.type === 'alternate',
      synchronizedOutput: m.synchronizedOutputMode,
      kittyKeyboardFlags: this.kittyStack.length > 0 ? this.kittyStack[this.kittyStack.length - 1]! : 0,
      modifyOtherKeys: this.modifyOtherKeys,
    };
  }

  get isCursorVisible(): boolean {
    return this.cursorVisible;
  }

  /** A sequence that may change a mode passed: read them afresh next time. Lets xterm apply it. */
  private invalidate(): boolean {
    this.cached = null;
    return false;
  }

  private decPrivate(params: (number | number[])[], on: boolean): boolean {
    this.cached = null;
    for (const param of params) {
      const mode = first(param, 0);
      if (mode === 25) this.cursorVisible = on;
      const encoding = MOUSE_ENCODINGS.get(mode);
      if (encoding !== undefined) {
        if (on) this.mouseEncoding = encoding;
        else if (this.mouseEncoding === encoding) this.mouseEncoding = 'default';
      }
    }
    return false;
  }

  private softReset(): boolean {
    this.cached = null;
    this.cursorVisible = true;
    return false;
  }

  private fullReset(): boolean {
    this.cached = null;
    this.cursorVisible = true;
    this.mouseEncoding = 'default';
    this.kittyStack = [];
    this.modifyOtherKeys = 0;
    return false;
  }

  private kittyPush(params: (number | number[])[]): boolean {
    this.cached = null;
    if (this.kittyStack.length >= KITTY_STACK_LIMIT) this.kittyStack.shift();
    this.kittyStack.push(first(params[0], 0));
    return true;
  }

  private kittyPop(params: (number | number[])[]): boolean {
    this.cached = null;
    const count = Math.max(1, first(params[0], 1));
    this.kittyStack.splice(Math.max(0, this.kittyStack.length - count));
    return true;
  }

  private kittySet(params: (number | number[])[]): boolean {
    this.cached = null;
    const flags = first(params[0], 0);
    const how = first(params[1], 1);
    const current = this.kittyStack.length > 0 ? this.kittyStack[this.kittyStack.length - 1]! : 0;
    const next = how === 2 ? current | flags : how === 3 ? current & ~flags : flags;
    if (this.kittyStack.length === 0) this.kittyStack.push(next);
    else this.kittyStack[this.kittyStack.length - 1] = next;
    return true;
  }

  private xtermKeyModifiers(params: (number | number[])[]): boolean {
    this.cached = null;
    if (first(params[0], -1) === 4) this.modifyOtherKeys = first(params[1], 0);
    return false;
  }

  dispose(): void {
    for (const handler of this.handlers.splice(0)) handler.dispose();
  }
}
