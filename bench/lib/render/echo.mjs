// Keystroke echo timing, shared by bench:render's echo workloads and bench:relay: a keystroke is
// timed from its write into a client's pty to its echo showing in that client's output.
import { sleep } from './pty-client.mjs';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Milliseconds from writing `ch` into the client to `ch` showing in its output. */
export async function echoOnce(client, ch, timeoutMs) {
  const seen = client.waitForText(ch, timeoutMs);
  const t = performance.now();
  client.write(ch);
  const at = await seen;
  return at - t;
}

export function percentile(sorted, q) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/**
 * `warmup + samples` keystrokes into each client, the clients taking turns (one client: one after
 * the other), a human-ish 4-10 ms apart so none is coalesced with the previous echo's paint, and a
 * line break every 40 so the line never wraps. Resolves with one result per client, in order
 * (`all`: every sample, sorted).
 */
export async function sampleEcho(clients, { warmup, samples }) {
  const lat = clients.map(() => []);
  const timeouts = clients.map(() => 0);
  for (let i = 0; i < warmup + samples; i++) {
    for (let k = 0; k < clients.length; k++) {
      const client = clients[k];
      try {
        const ms = await echoOnce(client, LETTERS[i % LETTERS.length], 1000);
        if (i >= warmup) lat[k].push(ms);
      } catch {
        if (++timeouts[k] > 5) throw new Error(`echo timed out repeatedly (client ${k + 1} of ${clients.length})`);
      }
      if (i % 40 === 39) {
        client.write('\r\n');
        await client.settle(30, 500);
      }
      await sleep(4 + Math.random() * 6);
    }
  }
  return lat.map((l, k) => ({ ...latencyStats(l), timeouts: timeouts[k], all: l }));
}

/** p50, p99, max and count of latencies in ms (sorts `samples` in place). */
export function latencyStats(samples) {
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), max: samples[samples.length - 1], n: samples.length };
}
