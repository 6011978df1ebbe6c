// The dashboard's question before a workspace server starts where a config file came with the
// directory (docs/SECURITY.md, "A hostile repository"): the file would run its rows, its
// worktrees.setup and its federation as the operator, so swb shows what they are and asks, default
// no, as direnv and VS Code's Workspace Trust do. Yes records trust (the store: src/config/
// config-trust-store.ts). No, or no terminal to ask on (CI), goes on untrusted with one line saying
// how to trust; Ctrl-C starts nothing. The question is a convenience: the server decides for itself whatever started it
// (src/config/load-config.ts withholds an untrusted file's rows, setup and federation).
// Loaded by the thin client only when it is about to start a server, so `swb attach` to a running
// one pays nothing for it; it reads and hashes the file, and parses it only when it is untrusted.
import { isConfigTrusted } from '../config/config-trust.js';
import { recordTrust, trustStorePath } from '../config/config-trust-store.js';
import { findConfig, MAX_CONFIG_BYTES } from '../config/find-config-file.js';
import { readJsonFile } from '../config/read-json-file.js';
import { describeRunnableParts, hasRunnableParts, runnableParts, summarizeRunnableParts } from '../config/runnable-parts.js';
import { sanitize } from '../text/sanitize.js';
import { askYesNo } from '../util/ask-yes-no.js';
import { shellQuote } from '../util/shell-quote.js';

export interface TrustPromptOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--config FILE` from the command line: the operator's own choice, never asked about. */
  configFlag?: string;
  /** Where the question and notes go (stderr). */
  write: (text: string) => void;
  /** Whether there is a terminal to ask on. */
  interactive: boolean;
  /** The y/N question: true for yes, null when the operator interrupted it (Ctrl-C). */
  ask?: (question: string) => Promise<boolean | null>;
}

/** `interrupted`: Ctrl-C at the question; the caller starts nothing. */
export type TrustPromptOutcome = 'no-question' | 'trusted' | 'declined' | 'not-asked' | 'interrupted';

export async function askToTrustConfig(o: TrustPromptOptions): Promise<TrustPromptOutcome> {
  if (o.configFlag !== undefined) return 'no-question';
  const found = findConfig({ cwd: o.cwd, env: o.env });
  if (!found || found.origin === 'flag' || found.origin === 'user') return 'no-question';
  const read = readJsonFile(found.path, MAX_CONFIG_BYTES);
  // A file that does not read or check: the server says what is wrong with it.
  if (!read.ok || isConfigTrusted(found, read.sha256, o.env)) return 'no-question';
  // Only now the schema (zod): a trusted or absent file costs the launch a read and a hash.
  const { checkConfig } = await import('../config/config-schema.js');
  const checked = checkConfig(read.value);
  if (!checked.ok) return 'no-question';
  const parts = runnableParts(checked.value);
  if (!hasRunnableParts(parts)) return 'no-question';

  const path = sanitize(found.path, { singleLine: true, maxChars: 1000 });
  const howTo = sanitize(`swb trust ${shellQuote(found.path)}`, { singleLine: true, maxChars: 1000 });
  if (!o.interactive) {
    o.write(`swb: ${path} is not trusted: its ${summarizeRunnableParts(parts)} will not run (to trust it: ${howTo})\n`);
    return 'not-asked';
  }
  const lines = describeRunnableParts(parts);
  o.write(
    `swb: ${path} ${found.origin === 'env' ? '(named by $SWB_CONFIG)' : 'came with this directory and'} is not trusted yet. It would run, as you:\n` +
      lines.map((l) => `  ${l}\n`).join(''),
  );
  const yes = await (o.ask ?? askYesNo)('Trust this file and run them? [y/N] ');
  if (yes === null) return 'interrupted';
  if (!yes) {
    o.write(`swb: starting without them (to trust it later: ${howTo})\n`);
    return 'declined';
  }
  const recorded = recordTrust(trustStorePath(o.env), found.path, read.sha256);
  if (!recorded.ok) {
    o.write(`swb: ${recorded.code}: ${sanitize(recorded.message, { singleLine: true, maxChars: 1000 })} Starting without them.\n`);
    return 'declined';
  }
  return 'trusted';
}
