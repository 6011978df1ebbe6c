// Hand-built app state pieces for unit and component tests.
import type { RowView } from '../../../src/app/app-state.js';
import type { MailEntry } from '../../../src/app/mail-view-state.js';

export function row(name: string, patch: Partial<RowView> = {}): RowView {
  return {
    name,
    profile: null,
    command: 'sh',
    running: true,
    exitCode: null,
    exitSignal: null,
    agentState: null,
    stateRule: null,
    unread: 0,
    lastOutputAt: 0,
    title: '',
    wakePolicy: 'notify',
    wakeFailed: false,
    incarnation: 1,
  restored: null,
    ...patch,
  };
}

export function entry(id: number, patch: Partial<MailEntry> = {}): MailEntry {
  return { id, from: 'a', to: ['b'], kind: 'msg', text: `message ${id}`, replyTo: null, createdAt: 1_700_000_000_000 + id, receipts: [{ to: 'b', state: 'accepted', woken: false }], ...patch };
}
