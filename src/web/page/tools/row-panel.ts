// A row's tools in the page: explain (`swb explain`'s text), its wake policy, restart, close, a
// worktree row's review and the removal of its worktree, reopening a closed row, the mail parked for
// review, and the new-row dialog. A change that would end a program is tried as asked; when the
// server answers CONFIRM_REQUIRED (the dashboard's questions, asked by the server), the page puts
// the server's question to the operator and sends it again confirmed.
import type { WakePolicy } from '../../../app/app-state.js';
import type { PageRow } from '../../page-protocol.js';
import type { DeskInfo, ToolMethods } from '../../tool-protocol.js';
import { ConfirmBar } from './confirm-bar.js';
import { button, el, fill, mutating, option } from './dom.js';
import { NewRowDialog } from './new-row-dialog.js';
import { reviewView } from './review-view.js';
import { describeError, type Answer, type ToolClient } from './tool-client.js';
import type { ToolsDisposable } from './tools-host.js';

export interface RowPanelOptions {
  client: ToolClient;
  rows(): readonly PageRow[];
  focused(): string | null;
  showRow(name: string): void;
  writeTo(name: string): void;
}

type Confirmable = 'row.restart' | 'row.close' | 'worktree.remove';

export class RowPanel {
  readonly root: HTMLElement;
  private row: string | null = null;
  private readonly select = el('select', { class: 'tools-row-select', attrs: { 'aria-label': 'row' } });
  private readonly head = el('div', { class: 'tools-row-head' });
  private readonly actions = el('div', { class: 'tools-actions' });
  private readonly wake = el('select', { class: 'tools-wake', attrs: { 'aria-label': 'wake policy' } }, (['auto', 'notify', 'off'] as const).map((p) => option(p)));
  private readonly confirm = new ConfirmBar();
  private readonly output = el('div', { class: 'tools-row-output' });
  private readonly status = el('div', { class: 'tools-status', attrs: { role: 'status' } });
  private readonly closedList = el('div', { class: 'tools-closed' });
  private readonly parkedList = el('div', { class: 'tools-parked' });
  private readonly dialog: NewRowDialog;
  private readonly subscriptions: ToolsDisposable[] = [];

  constructor(private readonly o: RowPanelOptions) {
    const { client } = o;
    this.select.addEventListener('change', () => this.choose(this.select.value || null));
    this.wake.addEventListener('change', () => void this.setWake(this.wake.value as WakePolicy));
    this.dialog = new NewRowDialog(client, (name) => {
      o.showRow(name);
      void this.refreshDesk();
    });
    this.root = el('section', { class: 'tools-row', attrs: { 'aria-label': 'row tools' } }, [
      el('div', { class: 'tools-filters' }, [this.select, mutating(el('label', { class: 'tools-field tools-inline' }, ['wake', this.wake]))]),
      this.head,
      this.actions,
      this.confirm.root,
      this.status,
      this.output,
      mutating(this.dialog.root),
      this.closedList,
      this.parkedList,
    ]);
    this.subscriptions.push(
      client.on('wake', (w) => w.row === this.row && (this.wake.value = w.policy)),
      client.onReconnect(() => void this.refreshDesk()),
    );
    this.refresh();
    void this.refreshDesk();
  }

  /** The rows changed (or the panel is shown): the list, the chosen row's header and buttons. */
  refresh(): void {
    const rows = this.o.rows();
    if (this.row === null || !rows.some((r) => r.name === this.row)) this.row = this.o.focused() ?? rows[0]?.name ?? null;
    fill(this.select, rows.length === 0 ? [option('', 'no rows')] : rows.map((r) => option(r.name, r.name, r.name === this.row)));
    this.renderRow();
  }

  /** Shows the tools of row `name`. */
  choose(name: string | null): void {
    if (name !== this.row) fill(this.output, []);
    this.row = name;
    this.refresh();
  }

  private current(): PageRow | undefined {
    return this.o.rows().find((r) => r.name === this.row);
  }

  private renderRow(): void {
    const row = this.current();
    if (!row) {
      fill(this.head, [el('span', { text: 'no row chosen' })]);
      fill(this.actions, []);
      return;
    }
    this.wake.value = row.wakePolicy;
    this.wake.disabled = row.profile === null;
    const state = row.running ? (row.agentState ?? 'running') : `exited${row.exitCode !== null ? ` ${row.exitCode}` : ''}`;
    fill(this.head, [
      el('span', { class: 'tools-row-name', text: row.name }),
      el('span', { class: `tools-state state-${row.agentState ?? (row.running ? 'running' : 'exited')}`, text: state }),
      row.profile ? el('span', { class: 'tools-row-profile', text: row.profile }) : null,
      row.git ? el('span', { class: 'tools-row-branch', text: `${row.git.branch}${row.git.dirty ? ' *' : ''}` }) : null,
      row.title ? el('span', { class: 'tools-row-title', text: row.title }) : null,
    ]);
    fill(this.actions, [
      button('explain', () => void this.explain()),
      row.git ? button('review', () => void this.review()) : null,
      button('show', () => this.o.showRow(row.name)),
      mutating(button('write to', () => this.o.writeTo(row.name))),
      mutating(button('restart', () => void this.change('row.restart', row.name))),
      mutating(button('close', () => void this.change('row.close', row.name))),
      row.git ? mutating(button('remove worktree', () => void this.change('worktree.remove', row.name))) : null,
    ]);
  }

  private async explain(): Promise<void> {
    const name = this.row;
    if (name === null) return;
    const r = await this.o.client.ask('explain', { row: name, verbose: true });
    if ('error' in r) return this.say(describeError(r.error), true);
    fill(this.output, [el('pre', { class: 'tools-explain', attrs: { 'aria-label': `explain ${name}` }, text: r.ok.text })]);
  }

  private async review(): Promise<void> {
    const name = this.row;
    if (name === null) return;
    this.say(`reading the changes of @${name} …`);
    const r = await this.o.client.ask('row.review', { row: name });
    if ('error' in r) return this.say(describeError(r.error), true);
    this.say('');
    fill(this.output, [reviewView(r.ok.title, r.ok.lines), mutating(button(`write to @${name}`, () => this.o.writeTo(name)))]);
  }

  private async setWake(policy: WakePolicy): Promise<void> {
    if (this.row === null) return;
    const r = await this.o.client.ask('wake.set', { row: this.row, policy });
    this.say('error' in r ? describeError(r.error) : r.ok.said, 'error' in r);
  }

  /** Asks the server; when it wants the operator's word first, asks the operator and sends it confirmed. */
  private async change(method: Confirmable, row: string, confirm = false): Promise<void> {
    const r = (await this.o.client.ask(method, { row, ...(confirm ? { confirm: true } : {}) })) as Answer<ToolMethods[Confirmable]['result']>;
    if ('ok' in r) {
      this.say(r.ok.said);
      void this.refreshDesk();
      return;
    }
    if (r.error.code !== 'CONFIRM_REQUIRED' || confirm) return this.say(describeError(r.error), true);
    const row0 = this.o.rows().find((x) => x.name === row);
    const choices =
      method === 'row.close' && row0?.git
        ? [
            { label: 'close, keep the worktree', run: () => void this.change('row.close', row, true) },
            { label: 'close and remove the worktree', run: () => void this.change('worktree.remove', row, true) },
          ]
        : [{ label: method === 'row.restart' ? 'restart' : method === 'row.close' ? 'close' : 'remove', run: () => void this.change(method, row, true) }];
    this.confirm.ask(`${r.error.message}?`, choices);
  }

  private async refreshDesk(): Promise<void> {
    const r = await this.o.client.ask('desk', {});
    if ('error' in r) return;
    const info = r.ok as DeskInfo & { cwd?: string };
    this.dialog.offer(info);
    fill(this.closedList, info.closed.length === 0 ? [] : [
      el('div', { class: 'tools-subhead', text: 'closed rows' }),
      ...info.closed.map((c) => el('div', { class: 'tools-closed-row' }, [el('span', { text: `${c.name} — ${c.command}` }), mutating(button('reopen', () => void this.reopen(c.name)))])),
    ]);
    fill(this.parkedList, info.parked.length === 0 ? [] : [
      el('div', { class: 'tools-subhead', text: 'mail parked for review' }),
      ...info.parked.map((p) =>
        el('div', { class: 'tools-parked-row' }, [
          el('span', { text: `@${p.recipient}: ${p.count} message${p.count === 1 ? '' : 's'}` }),
          mutating(button('hand over', () => void this.parked('parked.redeliver', p.recipient))),
          mutating(button('discard', () => void this.parked('parked.discard', p.recipient))),
        ]),
      ),
    ]);
  }

  private async reopen(name: string): Promise<void> {
    const r = await this.o.client.ask('row.reopen', { row: name });
    this.say('error' in r ? describeError(r.error) : r.ok.said, 'error' in r);
    void this.refreshDesk();
  }

  private async parked(method: 'parked.redeliver' | 'parked.discard', row: string): Promise<void> {
    const r = await this.o.client.ask(method, { row });
    this.say('error' in r ? describeError(r.error) : r.ok.said, 'error' in r);
    void this.refreshDesk();
  }

  private say(text: string, error = false): void {
    this.status.textContent = text;
    this.status.classList.toggle('is-error', error);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
