// xterm.js draws with <style> elements it writes at run time (its theme, its cell sizes), which
// the page's Content-Security-Policy (no inline style) does not apply. This carries each such
// element's text into a constructed stylesheet (document.adoptedStyleSheets), which the policy
// does not cover, and follows the element as xterm.js rewrites or removes it. Only <style>
// elements inside terminals (`.xterm`) are carried: the page has no other, and peer text never
// reaches one (xterm.js builds them from its options, not from the screen).
const sheets = new Map<HTMLStyleElement, CSSStyleSheet>();

function sync(element: HTMLStyleElement): void {
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
  if (node instanceof HTMLStyleElement) {
    if (node.closest('.xterm')) sync(node);
  } else if (node instanceof Element) {
    node.querySelectorAll('.xterm style').forEach((s) => sync(s as HTMLStyleElement));
  }
}

/** Starts carrying terminal styles (once, at boot). */
export function bridgeTerminalStyles(root: Node = document.body): void {
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      const target = record.target;
      if (record.type === 'characterData') {
        if (target.parentNode instanceof HTMLStyleElement) visit(target.parentNode);
        continue;
      }
      if (target instanceof HTMLStyleElement) visit(target);
      record.addedNodes.forEach(visit);
      // A removed style (or a terminal holding one) leaves the document: drop its sheet.
      if (record.removedNodes.length > 0) for (const element of [...sheets.keys()]) if (!element.isConnected) sync(element);
    }
  });
  observer.observe(root, { subtree: true, childList: true, characterData: true });
}
