// xterm.js draws with <style> elements it makes at run time (its theme, its cell sizes), which
// the page's Content-Security-Policy (style-src 'self': no inline style) refuses to apply, and
// reports. So the page hands xterm.js, when it asks the document for a <style>, an inert element
// of its own (TAG, never displayed, app.css) and carries each one's text into a constructed
// stylesheet (document.adoptedStyleSheets), which the policy does not cover, following it as
// xterm.js rewrites or removes it. xterm.js only sets these elements' textContent and removes
// them; nothing else in the page makes a <style>. Their text comes from xterm.js's options,
// never from a row's screen.
const TAG = 'swb-term-style';
const sheets = new Map<Element, CSSStyleSheet>();

function sync(element: Element): void {
  let sheet = sheets.get(element);
  if (!element.isConnected) {
    if (sheet) {
      sheets.delete(element);
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
    }
    return;
  }
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheets.set(element, sheet);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }
  sheet.replaceSync(element.textContent ?? '');
}

function visit(node: Node): void {
  if (!(node instanceof Element)) return;
  if (node.localName === TAG) sync(node);
  else node.querySelectorAll(TAG).forEach(sync);
}

/** Starts handing out and carrying terminal styles (once, at boot, before any terminal is made). */
export function bridgeTerminalStyles(root: Node = document.body): void {
  const create = document.createElement.bind(document);
  document.createElement = ((tag: string, options?: ElementCreationOptions) => (tag.toLowerCase() === 'style' ? create(TAG) : create(tag, options))) as typeof document.createElement;
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      const target = record.target;
      if (record.type === 'characterData') {
        if (target.parentNode) visit(target.parentNode);
        continue;
      }
      visit(target);
      record.addedNodes.forEach(visit);
      // A removed style (or a terminal holding one) leaves the document: drop its sheet.
      if (record.removedNodes.length > 0) for (const element of [...sheets.keys()]) if (!element.isConnected) sync(element);
    }
  });
  observer.observe(root, { subtree: true, childList: true, characterData: true });
}
