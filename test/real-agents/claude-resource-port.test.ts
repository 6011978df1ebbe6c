// Issue #35 on REAL Claude Code: two `claude` rows are each told (by mail; the wake types the line)
// to run a script that binds one fixed port, through `swb run --resource port:N`. The model stub
// answers with that Bash command (pre-approved for swb by the rows' --allowedTools); both Claudes
// run it at once, and the reservation makes them take turns: both scripts bind the port and exit 0,
// and their start/end marks never overlap. Without the gate the second bind fails (EADDRINUSE).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { writeClaudeConfig } from '../helpers/claude-config.js';
import { runCleanups } from '../helpers/cleanup.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startAnthropicStub, type AnthropicStub } from '../support/model-api/anthropic-stub.mjs';
import { cliInstalled, CLAUDE_BIN, CLAUDE_API_KEY as API_KEY } from './agent-cli.js';

const WAKE_LINE = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('claude')!.wakeLine;
const ROWS = ['alpha', 'beta'] as const;

/** Holds the port for a moment, writing start/end marks; says BOUND or BIND-FAILED. */
const BIND_SCRIPT = `
const net = require('node:net');
const fs = require('node:fs');
const [port, marks] = process.argv.slice(2);
const who = process.env.SWB_SESSION;
const server = net.createServer();
server.on('error', (e) => {
  fs.appendFileSync(marks, 'fail ' + who + ' ' + e.code + '\\n');
  console.log('BIND-FAILED ' + who + ' ' + e.code);
  process.exit(1);
});
server.listen(Number(port), '127.0.0.1', () => {
  fs.appendFileSync(marks, 'start ' + who + ' ' + Date.now() + '\\n');
  setTimeout(() => {
    fs.appendFileSync(marks, 'end ' + who + ' ' + Date.now() + '\\n');
    server.close(() => {
      console.log('BOUND ' + who + ' OK');
      process.exit(0);
    });
  }, 1500);
});
`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Two claude rows, each with its own Claude HOME, in one trusted project. */
function writeTwoRowConfig(home: TempHome, stubUrl: string): string {
  const { config, claudeHome } = writeClaudeConfig(home, {
    bin: CLAUDE_BIN,
    stubUrl,
    apiKey: API_KEY,
    args: `--permission-mode default --allowedTools 'Bash(swb:*)'`,
    // The typed wake tells them; the native tools are claude-hooks.test.ts's.
    row: { nativeTools: false },
  });
  const parsed = JSON.parse(readFileSync(config, 'utf8')) as { rows: Array<{ name: string; env: Record<string, string> }> };
  const template = parsed.rows[0]!;
  const claudeJson = readFileSync(join(claudeHome, '.claude.json'), 'utf8');
  parsed.rows = ROWS.map((name) => {
    const own = join(home.home, `claude-home-${name}`);
    mkdirSync(own, { recursive: true });
    writeFileSync(join(own, '.claude.json'), claudeJson);
    return { ...template, name, env: { ...template.env, HOME: own } };
  });
  writeFileSync(config, JSON.stringify(parsed));
  return config;
}

afterEach(runCleanups);

describe.skipIf(!cliInstalled(CLAUDE_BIN))('real Claude Code: two rows take turns on one port through swb run --resource', () => {
  let stub: AnthropicStub;
  let port: number;
  let dir: string;

  beforeAll(async () => {
    port = await freePort();
    dir = join(createTempHome().home, 'port-test');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'bind.cjs'), BIND_SCRIPT);
    const command = `swb run --resource port:${port} --reason 'bind the dev port' -- node ${join(dir, 'bind.cjs')} ${port} ${join(dir, 'marks')}`;
    stub = await startAnthropicStub({
      script: {
        turns: [
          {
            // The wake (the mail says to bind the port): run the script behind the reservation.
            match: 'You have new mail',
            content: [{ type: 'tool_use', name: 'Bash', input: { command, description: 'Bind the dev port behind its reservation' } }],
            afterTool: 'The port script finished.',
          },
        ],
        default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
  });

  afterAll(async () => {
    await stub?.close();
  });

  it('both scripts bind the port and succeed, one after the other', async () => {
    const home = createTempHome();
    const config = writeTwoRowConfig(home, stub.url);
    const t = startSwb({ home, args: ['--config', config], cols: 160, rows: 44 });
    await t.waitForText(/alpha · claude · idle/, { timeoutMs: 90_000 });
    await t.waitForText(/beta · claude · idle/, { timeoutMs: 90_000 });

    const sent = await runSwb(['send', '--as', 'lead', '@alpha', '@beta', `run the port script: it binds port ${port}`], { home });
    expect(sent.stderr).toBe('');
    expect(sent.status).toBe(0);

    await waitUntil(() => stub.requests.filter((r) => r.lastUser === WAKE_LINE).length >= 2, { timeoutMs: 90_000, what: 'both wakes to reach the model' });
    const results = await waitUntil(
      () => {
        const texts = stub.requests.map((r) => r.toolResult ?? '').filter((s) => /BOUND|BIND-FAILED|swb run/.test(s));
        return ROWS.every((row) => texts.some((s) => s.includes(`BOUND ${row} OK`) || s.includes(`BIND-FAILED ${row}`))) ? texts : undefined;
      },
      { timeoutMs: 120_000, what: 'both Bash tool results to reach the model' },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\ntool results: ${JSON.stringify(stub.requests.map((r) => r.toolResult).filter(Boolean))}\n${t.describe()}\nmarks:\n${(() => { try { return readFileSync(join(dir, 'marks'), 'utf8'); } catch { return '(none)'; } })()}`);
    });
    for (const row of ROWS) expect(results.join('\n')).toContain(`BOUND ${row} OK`);
    expect(results.join('\n')).not.toContain('BIND-FAILED');

    // start A, end A, start B, end B: the two holds never overlap.
    const marks = readFileSync(join(dir, 'marks'), 'utf8').trim().split('\n').map((l) => l.split(' '));
    expect(marks.map(([kind]) => kind)).toEqual(['start', 'end', 'start', 'end']);
    expect(marks[0]![1]).toBe(marks[1]![1]);
    expect(marks[2]![1]).toBe(marks[3]![1]);
    expect(new Set([marks[0]![1], marks[2]![1]])).toEqual(new Set(ROWS));
    expect(Number(marks[1]![2])).toBeLessThanOrEqual(Number(marks[2]![2]));

    // Nothing is left held or queued.
    const status = await runSwb(['resource', 'status', `port:${port}`, '--json'], { home });
    expect(status.status).toBe(0);
    const after = JSON.parse(status.stdout) as { resources: Array<{ holders: unknown[]; queue: unknown[] }> };
    expect(after.resources.every((r) => r.holders.length === 0 && r.queue.length === 0)).toBe(true);
  }, 300_000);
});
