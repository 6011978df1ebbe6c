// The tools' entry the shell calls (see tools-host.ts). web-tools replaces this file with the
// real panel (mail view, notifications, composer, receipts, explain, wake policy, row actions,
// review); until then the panel says so, so the shell can be built and tested on its own.
import type { MountTools } from './tools-host.js';

export const mountTools: MountTools = (host) => {
  const note = document.createElement('p');
  note.className = 'tools-empty';
  note.textContent = 'The tools panel is not part of this build.';
  host.panel.append(note);
  return { dispose: () => note.remove() };
};
