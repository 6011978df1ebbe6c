// What `swb status` says about the link to other nodes (src/cli/status.ts).
import { describe, expect, it } from 'vitest';
import { linkLine } from '../../../src/cli/status.js';
import type { LinkStatus } from '../../../src/federation/nats-link.js';

const base: LinkStatus = { node: 'alpha', url: 'nats://n:4222', state: 'up', since: Date.UTC(2026, 11, 1, 12), queued: 0, oldestQueuedAt: null, problem: null };

describe('linkLine', () => {
  it('an up link with nothing waiting', () => {
    expect(linkLine(base)).toBe('federation: node alpha on nats://n:4222: link up since 2026-12-01T12:00:00.000Z; nothing queued');
  });

  it('a link that is down says queued, since when, why, and how much waits', () => {
    const line = linkLine({ ...base, state: 'down', queued: 3, oldestQueuedAt: Date.UTC(2026, 11, 1, 12, 5), problem: 'lost nats://n:4222' });
    expect(line).toBe(
      'federation: node alpha on nats://n:4222: queued: link down since 2026-12-01T12:00:00.000Z (lost nats://n:4222); 3 messages and receipts queued (oldest 2026-12-01T12:05:00.000Z)',
    );
  });

  it('an up link with a backlog names the last problem; a link still connecting says not yet up', () => {
    expect(linkLine({ ...base, queued: 1, oldestQueuedAt: base.since, problem: 'publishing: timeout' })).toMatch(/link up since .*; 1 message and receipts queued .* \(last problem: publishing: timeout\)$/);
    expect(linkLine({ ...base, state: 'connecting' })).toMatch(/: queued: link not yet up since /);
  });

  it('a problem quoting the NATS server reaches the terminal sanitized: one line, no escape sequences', () => {
    const line = linkLine({ ...base, state: 'connecting', problem: "cannot connect: 'Authorization Violation\x1b]0;owned\x07\x1b[2J'\nnext" });
    expect(line).not.toMatch(/[\x00-\x1f\x7f]/);
    expect(line).toContain('Authorization Violation');
  });
});
