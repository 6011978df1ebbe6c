// The login page's script (login.html, served without a credential: it holds no secret). `swb web`
// prints /login#token=…: the fragment is never sent to a server nor in a Referer, so the token
// reaches only this script, which drops it from the address bar at once, POSTs it to /login (JSON),
// keeps the page key the answer carries (the cookie is set HttpOnly by the same answer) and opens
// the page. A wrong or revoked token says so, and nothing more.
import { storePageKey } from './page-key.js';

async function login(): Promise<void> {
  const status = document.getElementById('status')!;
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get('token');
  history.replaceState(null, '', '/login');
  if (!token) {
    status.textContent = fragment.has('revoked')
      ? "This page's access was revoked (`swb web --rotate`): open the new address `swb web` prints."
      : 'Open the address `swb web` printed (it carries a one-time token).';
    return;
  }
  const res = await fetch('/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token }),
    credentials: 'same-origin',
  }).catch(() => null);
  if (!res || !res.ok) {
    status.textContent = res?.status === 401 ? 'This token is not valid (revoked or mistyped): run `swb web` again.' : 'The server could not be reached.';
    return;
  }
  const answer = (await res.json()) as { pageKey?: unknown };
  if (typeof answer.pageKey !== 'string') {
    status.textContent = 'The server answered without a page key.';
    return;
  }
  storePageKey(answer.pageKey);
  location.replace('/');
}

void login();
