import type { PeerInfo } from '../protocol/methods.js';
import type { CommandDescriptor } from './command.js';

export const peersCommand: CommandDescriptor = {
  name: 'peers',
  summary: 'List the sessions this hub knows: rows, the operator and other participants, live or not.',
  usage: '',
  maxArgs: 0,
  flags: [],
  async run(ctx) {
    const client = await ctx.connect();
    const peers: PeerInfo[] = [];
    for (let after: string | undefined; ; ) {
      const page = await client.request<{ peers: PeerInfo[]; next?: string | null }>('peers.list', after === undefined ? {} : { after });
      peers.push(...page.peers);
      if (!page.next) break;
      after = page.next;
    }
    ctx.result({ you: client.hello?.session, peers });
    const width = Math.max(8, ...peers.map((p) => p.handle.length + 1));
    for (const p of peers) {
      const me = p.handle === client.hello?.session ? '  (you)' : '';
      const held = p.heldWith?.length ? `  held with ${p.heldWith.map((h) => `@${h}`).join(' ')} (reply budget; swb status)` : '';
      const seen = p.node !== undefined && p.ageMs !== undefined ? `  node ${p.node}, seen ${formatAge(p.ageMs)} ago` : p.node !== undefined ? `  node ${p.node}, not seen` : '';
      ctx.print(`${`@${p.handle}`.padEnd(width)}  ${(p.online ? 'online' : 'offline').padEnd(7)}  ${p.role.padEnd(11)}  ${p.unread} unread${me}${held}${seen}`);
    }
    return 0;
  },
};

function formatAge(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 90 ? `${s} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
}
