// Emulator state that @xterm/headless keeps private but a fast-forward through plain output
// (plain-backlog.ts) must know: is the parser between sequences, does a line feed at the bottom
// push the whole screen into history, and does printable ASCII print as itself. Read from the
// pinned version's internals; when their shape differs (another xterm version), probeEmulator
// returns null and callers parse everything, which is always correct. A unit test fails if the
// probe stops finding them on the installed version.
import type { Terminal } from '@xterm/headless';

export interface EmulatorProbe {
  /** The parser is in its ground state (not inside any sequence) and no handler is paused. */
  atGround(): boolean;
  /**
   * The normal buffer is active, the scroll region is the whole screen and the viewport follows
   * the output: every line scrolled off the top goes into (and eventually out of) history.
   */
  scrollsWholeScreen(): boolean;
  /** Printable ASCII prints as itself: no other charset (DEC graphics, a national one) is active. */
  asciiCharset(): boolean;
}

interface ParserInternals {
  currentState: number;
  _parseStack?: { state: number };
}

interface BufferInternals {
  scrollTop: number;
  scrollBottom: number;
  ybase: number;
  ydisp: number;
}

interface CoreInternals {
  _inputHandler?: { _parser?: ParserInternals; _parseStack?: { paused: boolean } };
  _bufferService?: { buffer?: BufferInternals; buffers?: { normal?: BufferInternals }; isUserScrolling?: boolean };
  /** `charset` is the map print() applies to bytes below 0x7f; undefined for US ASCII. */
  _charsetService?: { charset?: unknown; glevel?: number };
}

/** xterm's ParserState.GROUND. */
const GROUND = 0;

export function probeEmulator(terminal: Terminal): EmulatorProbe | null {
  const core = (terminal as unknown as { _core?: CoreInternals })._core;
  const inputHandler = core?._inputHandler;
  const parser = inputHandler?._parser;
  const bufferService = core?._bufferService;
  if (
    !parser ||
    typeof parser.currentState !== 'number' ||
    typeof parser._parseStack?.state !== 'number' ||
    typeof inputHandler?._parseStack?.paused !== 'boolean' ||
    !bufferService ||
    typeof bufferService.isUserScrolling !== 'boolean' ||
    typeof bufferService.buffer?.scrollBottom !== 'number' ||
    typeof bufferService.buffer.ydisp !== 'number' ||
    bufferService.buffers?.normal === undefined ||
    typeof core?._charsetService?.glevel !== 'number'
  ) {
    return null;
  }
  return {
    atGround: () => parser.currentState === GROUND && parser._parseStack!.state === 0 && !inputHandler._parseStack!.paused,
    scrollsWholeScreen: () => {
      const buffer = bufferService.buffer!;
      return (
        buffer === bufferService.buffers!.normal &&
        buffer.scrollTop === 0 &&
        buffer.scrollBottom === terminal.rows - 1 &&
        buffer.ydisp === buffer.ybase &&
        !bufferService.isUserScrolling
      );
    },
    asciiCharset: () => core!._charsetService!.charset === undefined,
  };
}
