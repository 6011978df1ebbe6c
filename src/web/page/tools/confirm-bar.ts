// The page's questions before something that ends a running program or a worktree: the question
// and two buttons, in the panel (no blocking dialog). The server asks again if the page did not
// (CONFIRM_REQUIRED), so this is the operator's chance to say no, not the only guard.
import { button, el, fill } from './dom.js';

export class ConfirmBar {
  readonly root = el('div', { class: 'tools-confirm', attrs: { role: 'alertdialog', 'aria-live': 'assertive' } });

  constructor() {
    this.root.hidden = true;
  }

  /** Asks `question` (the server's own words); each choice acts, cancel does nothing. */
  ask(question: string, choices: ReadonlyArray<{ label: string; run: () => void }>): void {
    const close = () => {
      this.root.hidden = true;
      fill(this.root, []);
    };
    fill(this.root, [
      el('span', { class: 'tools-confirm-question', text: question }),
      ...choices.map((c) =>
        button(c.label, () => {
          close();
          c.run();
        }, 'tools-button tools-danger'),
      ),
      button('cancel', close),
    ]);
    this.root.hidden = false;
  }
}
