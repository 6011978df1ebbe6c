// The tools' one way to make DOM: elements with classes, attributes and text set as text
// (textContent), never as HTML — mail, row names, titles and notes are peers' words. No inline
// style (the page's CSP has none): looks come from tools.css through classes.
import { button as pageButton } from '../button.js';

export type Child = Node | string | null | undefined | false;

export interface ElOptions {
  class?: string;
  text?: string;
  attrs?: Record<string, string>;
  title?: string;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (e: HTMLElementEventMap[K]) => void }>;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, o: ElOptions = {}, children: readonly Child[] = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (o.class) node.className = o.class;
  if (o.text !== undefined) node.textContent = o.text;
  if (o.title !== undefined) node.title = o.title;
  for (const [k, v] of Object.entries(o.attrs ?? {})) node.setAttribute(k, v);
  for (const [type, fn] of Object.entries(o.on ?? {})) node.addEventListener(type, fn as EventListener);
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return node;
}

/** The page's own button (../button.ts), with the tools' class unless another is given. */
export function button(text: string, onClick: () => void, cls = 'tools-button'): HTMLButtonElement {
  return pageButton(text, cls, onClick);
}

/**
 * Marks a control that changes something: a read-only page (the shell puts `read-only` on the body
 * once the server's hello says so) does not show it. The server refuses it anyway.
 */
export function mutating<T extends HTMLElement>(node: T): T {
  node.classList.add('tools-mutates');
  return node;
}

/** Replaces a node's children. */
export function fill(node: Element, children: readonly Child[]): void {
  node.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
}

export function option(value: string, text = value, selected = false): HTMLOptionElement {
  const o = el('option', { text, attrs: { value } });
  o.selected = selected;
  return o;
}

/** "10:42" in the operator's local time. */
export function hhmm(at: number): string {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}
