// A row's wake policy: the config's `wake` when given, else `auto` for agent profiles and `notify` for
// shells (a wake line typed at a shell prompt is only a comment, but nobody asked for it). A profile we
// do not know is never woken. The operator cycles it live: auto → notify → off → auto.
import type { WakePolicy } from '../agents/wake-controller.js';

/** Profiles that describe a shell rather than an agent that reads mail on its own. */
export const SHELL_PROFILES: ReadonlySet<string> = new Set(['bash', 'sh', 'generic']);

export function defaultWakePolicy(profileId: string, opts: { configured?: WakePolicy; known: boolean }): WakePolicy {
  if (!opts.known) return 'off';
  if (opts.configured) return opts.configured;
  return SHELL_PROFILES.has(profileId) ? 'notify' : 'auto';
}

