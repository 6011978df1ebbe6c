// What the operator should hear about how a row is started, before it bites. Pure; the dashboard shows
// each warning as a notification at start-up.
//
// Codex: a bare `codex` attaches to the app-server daemon shared by every codex with the same
// CODEX_HOME, and runs every command with the environment of the codex that started that daemon, so a
// row's `swb` would speak as whichever row started first (seen in test/real-agents/codex-swb.test.ts:
// row alpha's command got SWB_SESSION=beta). Any config override (-c, --config, --enable, --disable,
// --search) makes Codex run its server embedded, per process, as the codex profile's own command does.

export interface LaunchSpec {
  name: string;
  profile: string | undefined;
  /** The operator's own command line; undefined when the profile's command is used. */
  command: string | undefined;
}

// A word of the command line, quoted or not (`'-c'`, "--config=x": what a script that quotes every argument writes).
const CODEX_OVERRIDE = /(?:^|\s)(['"]?)(?:-c|--config|--enable|--disable|--search)(?:\1(?:\s|$)|=)/;

export function launchWarnings(spec: LaunchSpec): string[] {
  const warnings: string[] = [];
  if (spec.profile === 'codex' && spec.command !== undefined && !CODEX_OVERRIDE.test(spec.command)) {
    warnings.push(
      `${spec.name}: codex started without a -c option shares Codex's background server, whose commands run with ` +
        'the environment of whichever codex started it, so its swb may speak as another row. ' +
        'Add -c allow_login_shell=false (what the codex profile runs), or start it as the codex profile.',
    );
  }
  return warnings;
}
