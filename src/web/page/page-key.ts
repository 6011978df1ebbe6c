// Where the page keeps its page key: the second secret of its login (web-tokens.ts says why a
// cookie alone is not enough). localStorage is scoped to the page's origin — scheme, host AND port —
// so a row's dev server on another port of the same host, which does receive the cookie, cannot
// read it; and it outlives the tab, as the cookie does, so a second tab or the installed app works.
const STORAGE_KEY = 'swb.pageKey';

export function storePageKey(key: string): void {
  localStorage.setItem(STORAGE_KEY, key);
}

export function pageKey(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** After the server revoked the page's credentials: a stale key would only send the page round again. */
export function forgetPageKey(): void {
  try {
    localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage refused (private mode): nothing was kept.
  }
}
