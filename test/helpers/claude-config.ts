// A swb config with one row, `claude`, running the real Claude Code CLI offline against a model API
// stub: its own HOME with onboarding done, the stub's API key approved and the project trusted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TempHome } from './temp-home.js';

export interface ClaudeConfigOptions {
  /** The claude executable. */
  bin: string;
  stubUrl: string;
  apiKey: string;
  /** Arguments after the executable (a shell line). */
  args: string;
  /** More fields of the row (wake, nativeTools). */
  row?: Record<string, unknown>;
}

export function writeClaudeConfig(home: TempHome, o: ClaudeConfigOptions): { config: string; claudeHome: string; project: string } {
  const claudeHome = join(home.home, 'claude-home');
  const project = join(home.home, 'project');
  for (const d of [claudeHome, project]) mkdirSync(d, { recursive: true });
  writeFileSync(
    join(claudeHome, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: [o.apiKey.slice(-20)], rejected: [] },
      projects: { [project]: { hasTrustDialogAccepted: true } },
    }),
  );
  const config = join(home.workspace, 'swb.json');
  writeFileSync(
    config,
    JSON.stringify({
      rows: [
        {
          name: 'claude',
          profile: 'claude',
          ...o.row,
          command: `'${o.bin}' ${o.args}`,
          cwd: project,
          env: {
            HOME: claudeHome,
            SHELL: '/bin/bash',
            ANTHROPIC_BASE_URL: o.stubUrl,
            ANTHROPIC_API_KEY: o.apiKey,
            DISABLE_TELEMETRY: '1',
            DISABLE_ERROR_REPORTING: '1',
            DISABLE_AUTOUPDATER: '1',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          },
        },
      ],
    }),
  );
  return { config, claudeHome, project };
}
