// The "new row" dialog's fields as on the dashboard (N): an optional name, a profile or a command
// line, a directory (the server's own when empty), and, for a git worktree of its own, a branch
// ('' for the default swb/<name>). The server plans and starts it; the dialog shows its refusal.
import type { DeskInfo } from '../../tool-protocol.js';
import { el, fill, option } from './dom.js';
import { describeError, type ToolClient } from './tool-client.js';

export class NewRowDialog {
  readonly root: HTMLElement;
  private readonly name = el('input', { class: 'tools-input', attrs: { name: 'name', placeholder: 'name (optional)', 'aria-label': 'name', maxlength: '64' } });
  private readonly what = el('input', { class: 'tools-input', attrs: { name: 'what', placeholder: 'profile or command line', 'aria-label': 'profile or command', list: 'tools-profiles', maxlength: '4096' } });
  private readonly cwd = el('input', { class: 'tools-input', attrs: { name: 'cwd', placeholder: 'directory', 'aria-label': 'directory', maxlength: '4096' } });
  private readonly inWorktree = el('input', { attrs: { type: 'checkbox', name: 'in-worktree', 'aria-label': 'in a worktree' } });
  private readonly branch = el('input', { class: 'tools-input', attrs: { name: 'branch', placeholder: 'branch (default swb/<name>)', 'aria-label': 'branch', maxlength: '200' } });
  private readonly profiles = el('datalist', { attrs: { id: 'tools-profiles' } });
  private readonly status = el('div', { class: 'tools-status', attrs: { role: 'status' } });

  constructor(
    private readonly client: ToolClient,
    private readonly started: (name: string) => void,
  ) {
    this.branch.disabled = true;
    this.inWorktree.addEventListener('change', () => (this.branch.disabled = !this.inWorktree.checked));
    const form = el('form', { class: 'tools-new-row', attrs: { 'aria-label': 'new row' } }, [
      el('label', { class: 'tools-field' }, ['name', this.name]),
      el('label', { class: 'tools-field' }, ['profile or command', this.what, this.profiles]),
      el('label', { class: 'tools-field' }, ['directory', this.cwd]),
      el('label', { class: 'tools-check' }, [this.inWorktree, 'in a git worktree of its own']),
      el('label', { class: 'tools-field' }, ['branch', this.branch]),
      el('div', { class: 'tools-actions' }, [el('button', { class: 'tools-button', text: 'start', attrs: { type: 'submit' } })]),
      this.status,
    ]);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.submit();
    });
    this.root = el('details', { class: 'tools-new-row-box' }, [el('summary', { text: 'new row' }), form]);
  }

  /** What the server offers: its profiles, and the directory a row gets when none is given. */
  offer(info: DeskInfo & { cwd?: string }): void {
    this.root.hidden = !info.canCreateRows;
    fill(this.profiles, info.profiles.map((p) => option(p)));
    if (!this.cwd.value && info.cwd) this.cwd.placeholder = info.cwd;
  }

  private async submit(): Promise<void> {
    this.status.textContent = 'starting …';
    this.status.classList.remove('is-error');
    const r = await this.client.ask('row.new', {
      name: this.name.value.trim(),
      what: this.what.value.trim(),
      cwd: this.cwd.value.trim(),
      ...(this.inWorktree.checked ? { worktree: this.branch.value.trim() } : {}),
    });
    if ('error' in r) {
      this.status.textContent = describeError(r.error);
      this.status.classList.add('is-error');
      return;
    }
    this.status.textContent = r.ok.said;
    this.name.value = '';
    this.what.value = '';
    this.started(r.ok.name);
  }
}
