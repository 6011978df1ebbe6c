// Theme colours ("#rrggbb" or an ANSI name) as SGR parameters, for chrome the compositor paints
// itself (row headers) without going through Ink.
import type { Color } from '../config/theme.js';

const NAMED: Record<string, number> = {
  black: 0, red: 1, green: 2, yellow: 3, blue: 4, magenta: 5, cyan: 6, white: 7,
  blackBright: 8, gray: 8, grey: 8, redBright: 9, greenBright: 10, yellowBright: 11,
  blueBright: 12, magentaBright: 13, cyanBright: 14, whiteBright: 15,
};

function params(color: Color, background: boolean): string {
  const hex = /^#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})$/.exec(color);
  if (hex) return `${background ? 48 : 38};2;${parseInt(hex[1]!, 16)};${parseInt(hex[2]!, 16)};${parseInt(hex[3]!, 16)}`;
  const n = NAMED[color];
  if (n === undefined) return '';
  const base = background ? 40 : 30;
  return String(n < 8 ? base + n : base + 60 + n - 8);
}

export interface SgrStyle {
  fg?: Color;
  bg?: Color;
  bold?: boolean;
}

/** One SGR sequence that resets, then applies `style`. */
export function sgr(style: SgrStyle): string {
  const parts = ['0'];
  if (style.bold) parts.push('1');
  if (style.fg) parts.push(params(style.fg, false));
  if (style.bg) parts.push(params(style.bg, true));
  return `\x1b[${parts.filter(Boolean).join(';')}m`;
}
