// The agents' own hooks as the bundled profiles' native recipes hand them out (issue #37): Codex's as one
// `-c hooks=...` override carrying the trust Codex asks of each hook (its key and hash computed as Codex
// computes them), Gemini CLI's in a settings file of the row's own named by GEMINI_CLI_SYSTEM_DEFAULTS_PATH,
// each run in the background; every hook's command runs the native hook client where it was built, else
// `swb hook`, decided once per launch. Written through withNativeTools into a real temp dir.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codexEventLabel, codexHookArgs, codexHookHash } from '../../../src/agents/codex-hook-flags.js';
import { hookSignalOf } from '../../../src/agents/hook-signal.js';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import { withNativeTools } from '../../../src/server/native-tools.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const profiles = loadProfiles({ configDir: '/nonexistent-swb-config' });
const SWB = '/opt/my swb/bin/swb';

const NATIVE = '/opt/my swb/build/Release/swb-hook';

function launch(profile: string, args: string[] = [], hookClient: string | null = null) {
  const dir = mkdtempSync(join(tmpdir(), 'swb-native-hooks-'));
  dirs.push(dir);
  const spec = withNativeTools({ name: 'r', command: { file: profile, args }, profile }, { profiles, dir, swb: SWB, hookClient });
  const c = spec.command;
  const argv = typeof c !== 'string' && 'file' in c ? [c.file, ...(c.args ?? [])] : [];
  return { dir, spec, argv };
}

describe("Codex's hooks with their trust", () => {
  it("labels events and hashes a hook as Codex does (sorted keys, compact JSON, sha256)", () => {
    expect(codexEventLabel('UserPromptSubmit')).toBe('user_prompt_submit');
    expect(codexEventLabel('PreToolUse')).toBe('pre_tool_use');
    expect(codexEventLabel('Stop')).toBe('stop');
    // The value checked against the real Codex 0.171 (a hook with this trust ran; see codex-hooks.test.ts).
    expect(codexHookHash('UserPromptSubmit', { type: 'command', command: '/x/rec.sh UserPromptSubmit', timeout: 10, async: true })).toBe(
      'sha256:768037a9bfce187ba22d915aade8322b8b9fd92a190cbaa2fb342fbb7593b727',
    );
    // Key order of the handler does not matter; any field does.
    const a = codexHookHash('Stop', { type: 'command', command: 'x', timeout: 10, async: true });
    expect(codexHookHash('Stop', { async: true, timeout: 10, command: 'x', type: 'command' })).toBe(a);
    expect(codexHookHash('Stop', { type: 'command', command: 'x', timeout: 11, async: true })).not.toBe(a);
    expect(codexHookHash('PostToolUse', { type: 'command', command: 'x', timeout: 10, async: true })).not.toBe(a);
  });

  it('one -c hooks=... with each event, run in the background, and its trust under the session-flags key', () => {
    expect(codexHookArgs({})).toEqual([]);
    const [flag, value, ...rest] = codexHookArgs({ Stop: "'/a b/swb' hook turn-end", UserPromptSubmit: 'swb hook user-prompt-submit' });
    expect(flag).toBe('-c');
    expect(rest).toEqual([]);
    const stop = { type: 'command', command: "'/a b/swb' hook turn-end", timeout: 10, async: true };
    expect(value).toBe(
      'hooks={"Stop"=[{"hooks"=[{"type"="command","command"="\'/a b/swb\' hook turn-end","timeout"=10,"async"=true}]}],' +
        '"UserPromptSubmit"=[{"hooks"=[{"type"="command","command"="swb hook user-prompt-submit","timeout"=10,"async"=true}]}],' +
        `"state"={"/<session-flags>/config.toml:stop:0:0"={"trusted_hash"="${codexHookHash('Stop', stop)}"},` +
        `"/<session-flags>/config.toml:user_prompt_submit:0:0"={"trusted_hash"="${codexHookHash('UserPromptSubmit', { ...stop, command: 'swb hook user-prompt-submit' })}"}}}`,
    );
  });

  it("the codex profile's launch: its hooks before the MCP server's overrides, the launcher quoted in each command, notify left to the user", () => {
    const { argv } = launch('codex', ['-c', 'allow_login_shell=false']);
    expect(argv.slice(0, 3)).toEqual(['codex', '-c', 'allow_login_shell=false']);
    expect(argv.slice(-4)).toEqual(['-c', `mcp_servers.swb.command="${SWB}"`, '-c', 'mcp_servers.swb.args=["mcp"]']);
    const hooks = argv.find((a) => a.startsWith('hooks='))!;
    for (const [event, hook] of [
      ['UserPromptSubmit', 'user-prompt-submit'],
      ['PermissionRequest', 'permission-request'],
      ['PostToolUse', 'post-tool-use'],
      ['PreCompact', 'pre-compact'],
      ['Stop', 'turn-end'],
      // Codex runs no Stop for a turn the operator interrupted (Esc): its Interrupt hook ends it.
      ['Interrupt', 'interrupt'],
    ] as const) {
      // Codex clamps an Interrupt hook's timeout to 3 s and hashes the clamped definition for its trust.
      const timeout = event === 'Interrupt' ? 3 : 10;
      expect(hooks).toContain(`"${event}"=[{"hooks"=[{"type"="command","command"="'/opt/my swb/bin/swb' hook ${hook}","timeout"=${timeout},"async"=true}]}]`);
      expect(hooks).toContain(`"/<session-flags>/config.toml:${codexEventLabel(event)}:0:0"={"trusted_hash"="sha256:`);
    }
    expect(hooks).not.toContain('PreToolUse');
    expect(hooks).not.toContain('SessionStart');
    expect(argv.some((a) => a.startsWith('notify='))).toBe(false);
  });
});

describe("Gemini CLI's hooks in a settings file of the row's own", () => {
  it('is named by GEMINI_CLI_SYSTEM_DEFAULTS_PATH (0600), each hook backgrounded with the payload kept and the agent pid passed', () => {
    const { dir, spec, argv } = launch('gemini');
    const file = join(dir, 'r', 'settings.json');
    expect(spec.env).toEqual({ GEMINI_CLI_SYSTEM_DEFAULTS_PATH: file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // No arguments of swb's: the command is the user's.
    expect(argv).toEqual(['gemini']);
    const settings = JSON.parse(readFileSync(file, 'utf8')) as { hooksConfig: unknown; hooks: Record<string, Array<{ hooks: Array<{ command: string; timeout: number }> }>> };
    expect(settings.hooksConfig).toEqual({ notifications: false });
    const commands = Object.fromEntries(Object.entries(settings.hooks).map(([e, groups]) => [e, groups[0]!.hooks[0]!.command]));
    const bg = (event: string) => `SWB_HOOK_PARENT=$PPID '/opt/my swb/bin/swb' hook ${event} <&0 >/dev/null 2>&1 &`;
    expect(commands).toEqual({
      BeforeAgent: bg('user-prompt-submit'),
      AfterAgent: bg('turn-end'),
      AfterTool: bg('post-tool-use'),
      Notification: bg('notification'),
    });
  });

  it("a row's own env keeps other variables, and Gemini's ToolPermission notification reads as waiting (permission)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'swb-native-hooks-'));
    dirs.push(dir);
    const spec = withNativeTools({ name: 'g', command: 'gemini --yolo', profile: 'gemini', env: { FOO: '1' } }, { profiles, dir, swb: SWB, hookClient: null });
    expect(spec.env).toEqual({ FOO: '1', GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(dir, 'g', 'settings.json') });
    expect(spec.command).toBe('gemini --yolo');
    expect(hookSignalOf({ event: 'notification', notificationType: 'ToolPermission' })).toMatchObject({ kind: 'waiting', reason: 'permission' });
  });
});

describe('the native hook client in every recipe, where it was built', () => {
  const runner = `'${NATIVE}' '${SWB}'`;
  type Settings = { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };

  it("Claude Code's settings: every hook runs the client, told the launcher to hand the rest to; without it, `swb hook`", () => {
    const { dir } = launch('claude', [], NATIVE);
    const settings = JSON.parse(readFileSync(join(dir, 'r', 'settings.json'), 'utf8')) as Settings;
    const commands = Object.values(settings.hooks).map((groups) => groups[0]!.hooks[0]!.command);
    expect(commands.length).toBeGreaterThan(5);
    for (const c of commands) expect(c.startsWith(`${runner} `) && /^[a-z-]+$/.test(c.slice(runner.length + 1)), c).toBe(true);
    expect(commands).toContain(`${runner} stop`);
    const plain = launch('claude', [], null);
    const plainSettings = JSON.parse(readFileSync(join(plain.dir, 'r', 'settings.json'), 'utf8')) as Settings;
    expect(plainSettings.hooks.Stop![0]!.hooks[0]!.command).toBe(`'${SWB}' hook stop`);
  });

  it("Codex's hooks run the client, and their trust is the hash of that command", () => {
    const { argv } = launch('codex', [], NATIVE);
    const hooks = argv.find((a) => a.startsWith('hooks='))!;
    const stop = { type: 'command', command: `${runner} turn-end`, timeout: 10, async: true };
    expect(hooks).toContain(`"Stop"=[{"hooks"=[{"type"="command","command"=${JSON.stringify(stop.command)},"timeout"=10,"async"=true}]}]`);
    expect(hooks).toContain(`"/<session-flags>/config.toml:stop:0:0"={"trusted_hash"="${codexHookHash('Stop', stop)}"}`);
    expect(hooks).not.toContain(`'${SWB}' hook`);
  });

  it("Gemini CLI's hooks run the client in the background with the agent pid passed", () => {
    const { dir } = launch('gemini', [], NATIVE);
    const settings = JSON.parse(readFileSync(join(dir, 'r', 'settings.json'), 'utf8')) as Settings;
    expect(settings.hooks.BeforeAgent![0]!.hooks[0]!.command).toBe(`SWB_HOOK_PARENT=$PPID ${runner} user-prompt-submit <&0 >/dev/null 2>&1 &`);
  });
});
