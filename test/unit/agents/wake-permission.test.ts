// A row's wake line and the tools swb pre-approves for it agree (issue #31.15): when a profile's
// native recipe writes the agent's own settings with an allow list (Claude Code), the command the
// wake line asks the agent to run is on it, so a user without their own rule for it is not asked
// for permission at every wake. Checked on the settings file a row actually gets.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import { withNativeTools } from '../../../src/server/native-tools.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The command a wake line asks for: what it quotes in backticks or single quotes. */
function wakeCommand(line: string): string | null {
  const m = /`([^`]+)`|'([^']+)'/.exec(line);
  return m ? (m[1] ?? m[2])! : null;
}

/** Whether one of Claude Code's permission rules lets its Bash tool run `command` without asking. */
function allows(rules: readonly string[], command: string): boolean {
  return rules.some((rule) => {
    const m = /^Bash\((.*)\)$/.exec(rule);
    if (!m) return false;
    const pattern = m[1]!;
    // `prefix:*` (and `prefix *`): the prefix alone or followed by arguments; otherwise an exact command.
    const prefix = /^(.*?)(?::\*| \*)$/.exec(pattern)?.[1];
    if (prefix === undefined) return pattern === command;
    return command === prefix || command.startsWith(`${prefix} `);
  });
}

describe('wake line and pre-approved tools', () => {
  it('for every profile whose native settings pre-approve tools, the wake line\u2019s command is among them', () => {
    const configDir = mkdtempSync(join(tmpdir(), 'swb-noconfig-'));
    dirs.push(configDir);
    const set = loadProfiles({ configDir });
    let checked = 0;
    for (const [id, profile] of set.profiles) {
      if (!profile.native) continue;
      const dir = mkdtempSync(join(tmpdir(), 'swb-native-'));
      dirs.push(dir);
      withNativeTools({ name: 'r', command: [id].join(' '), profile: id }, { profiles: set, dir, swb: '/opt/swb/bin/swb', hookClient: null });
      const settingsFile = join(dir, 'r', 'settings.json');
      let allow: string[] | undefined;
      try {
        allow = (JSON.parse(readFileSync(settingsFile, 'utf8')) as { permissions?: { allow?: string[] } }).permissions?.allow;
      } catch {
        allow = undefined; // no settings file: this agent's approvals are not swb's to give
      }
      if (!allow) continue;
      const command = wakeCommand(profile.wakeLine);
      expect(command, `${id}: its wake line names a command`).not.toBeNull();
      expect(allows(allow, command!), `${id}: "${command}" is not allowed by ${JSON.stringify(allow)}`).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(0); // Claude Code's profile, at least
  });

  it('allows exactly the wake\u2019s command, not swb as a whole', () => {
    const rules = ['Bash(swb inbox:*)'];
    expect(allows(rules, 'swb inbox')).toBe(true);
    expect(allows(rules, 'swb inbox --all')).toBe(true);
    expect(allows(rules, 'swb send @x hi')).toBe(false);
    expect(allows(rules, 'swb inboxes')).toBe(false);
  });
});
