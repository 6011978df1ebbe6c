#!/usr/bin/env node
// npm run bench:mail — the mail core's figures against a real hub (`swb hub --max-unread 0 --rate 0`)
// in a temp SWB_HOME: accept latency, throughput at 1/8/32 senders, a SIGKILL crash round that
// counts lost and duplicated messages, `swb send` wall time beside `node -e 0`, and the MCP `send`
// tool's round trip through `swb mcp` beside that `swb send` process.
//
// The floor (issue #33) runs in the same run, turn by turn with swb's hub: bench/lib/mail-floor-hub.mjs,
// a bare Unix socket and mail.db's durability (WAL, synchronous=FULL, group commit) storing a message
// and its delivery rows and nothing more. Accept latency and throughput at 32 senders (one send in
// flight each, and eight) are reported against it: goals p50 <= 1.25x the floor's, throughput >= 0.7x.
// --compare=DIR also starts the hub built in checkout DIR (e.g. a `git worktree` of the base commit,
// built), in a temp home of its own, and measures it in the same rounds: accept latency, throughput
// at 32 senders and `swb send`'s wall time, each reported as a ratio B/A. Every hub answers the same
// client (this checkout's HubClient): the wire protocol is the contract between them.
//   --rounds=N  rounds of the side-by-side part (default 5, 3 with --quick)
//   --ids=repeat  the throughput shape before issue #33's fourth pass: every throughput run with 32
//               senders used the same message ids (tp-32-<sender>-<n>), so all but a system's first
//               run were retries of stored mail (answered as duplicates; the floor then stores
//               nothing), and this checkout's side-by-side runs all were (its first part had sent
//               them). By default each run sends new mail; run both to compare with older figures.
//   --a-hub=reused  the side-by-side shape before this session's fifth pass: this checkout's rounds ran
//               on the hub of the first part (restarted after the crash round's SIGKILL, its store
//               holding that part's tens of thousands of messages: deeper indexes, more WAL pages a
//               commit), while the floor and --compare started empty. By default this checkout gets a
//               fresh hub in a fresh home too, like for like; run both to compare with older figures.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { $ } from 'zx';
import { spawnListening } from './lib/spawn-listening.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const swb = join(root, 'dist', 'bin', 'swb.js');
const { HubClient } = await import(join(root, 'dist', 'src', 'client', 'hub-client.js'));
const { resolveRuntimePaths } = await import(join(root, 'dist', 'src', 'hub', 'runtime-paths.js'));

const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const compareDir = option('compare');
const compareSwb = compareDir === undefined ? undefined : join(compareDir, 'dist', 'bin', 'swb.js');
if (compareSwb !== undefined && !existsSync(compareSwb)) {
  process.stderr.write(`--compare: ${compareSwb} is missing (build that checkout first)\n`);
  process.exit(2);
}

/** A hub under test: which build, its own temp home, and the paths its socket and store take there. */
function systemAt(swbBin, label) {
  const home = mkdtempSync(join(tmpdir(), 'swb-bench-'));
  const env = { ...process.env, SWB_HOME: home };
  delete env.SWB_SOCKET;
  delete env.SWB_SESSION;
  delete env.SWB_TOKEN;
  return { label, swb: swbBin, home, env, paths: resolveRuntimePaths({ cwd: root, env }) };
}
const A = systemAt(swb, 'swb');
const B = compareSwb === undefined ? undefined : systemAt(compareSwb, 'swb@B');
/** The floor hub: its own private temp dir for the socket and the db; it speaks hello and mail.send only. */
const F = (() => {
  const dir = mkdtempSync(join(tmpdir(), 'swb-bench-floor-'));
  return { label: 'floor', home: dir, paths: { socketPath: join(dir, 'floor.sock'), dbFile: join(dir, 'floor.db') } };
})();
const { home, env, paths } = A;
const quick = process.argv.includes('--quick');

function startHub(sys = A) {
  const args = sys === F ? [join(root, 'bench', 'lib', 'mail-floor-hub.mjs'), F.paths.socketPath, F.paths.dbFile] : [sys.swb, 'hub', '--max-unread', '0', '--rate', '0'];
  return spawnListening(args, { cwd: root, env: sys.env ?? process.env });
}

async function connect(session, sys = A) {
  for (let i = 0; ; i++) {
    try {
      const c = await HubClient.open(sys.paths.socketPath);
      await c.sayHello({ session });
      return c;
    } catch (err) {
      if (i > 500) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/** CPU seconds a process spent so far, user and system (Linux /proc; 0 elsewhere). */
function cpuSeconds(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { user: Number(f[11]) / 100, system: Number(f[12]) / 100 };
  } catch {
    return { user: 0, system: 0 };
  }
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
const fmt = (n, d = 2) => n.toFixed(d);
let seq = 0;
/** Each throughput run's own message ids (new mail), unless --ids=repeat asks for the old shape. */
const repeatIds = option('ids') === 'repeat';
let throughputRun = 0;

async function latency(n, sys = A) {
  const c = await connect('lat', sys);
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await c.request('mail.send', { to: ['sink'], text: `latency probe ${i}`, messageId: `lat-${seq++}` });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  c.close();
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p99: pct(times, 99) };
}

async function throughput(senders, perSender, window, sys = A) {
  const run = repeatIds ? '' : `${throughputRun++}-`;
  const clients = await Promise.all(Array.from({ length: senders }, (_, i) => connect(`tp${senders}-${i}`, sys)));
  const t0 = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (c, i) => {
      let next = 0;
      const lane = async () => {
        while (next < perSender) {
          const n = next++;
          await c.request('mail.send', { to: ['sink'], text: `throughput ${i} ${n}`, messageId: `tp-${senders}-${run}${i}-${n}` });
        }
      };
      await Promise.all(Array.from({ length: window }, lane));
    }),
  );
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  for (const c of clients) c.close();
  return (senders * perSender) / secs;
}

/** 32 senders with retries; the hub is SIGKILLed mid-load and restarted. */
async function crashRound(hubRef, perSender) {
  const accepted = new Set();
  const senders = 32;
  let killed = false;
  const work = Array.from({ length: senders }, async (_, i) => {
    let c = await connect(`crash-${i}`);
    for (let n = 0; n < perSender; n++) {
      const messageId = `crash-${i}-${n}`;
      for (;;) {
        try {
          await c.request('mail.send', { to: ['sink'], text: `crash round ${i} ${n}`, messageId });
          accepted.add(`crash-${i}|${messageId}`);
          break;
        } catch {
          c.destroy();
          c = await connect(`crash-${i}`); // same messageId again: stored once, whatever happened
        }
      }
    }
    c.close();
  });
  const killer = (async () => {
    while (accepted.size < (senders * perSender) / 3) await new Promise((r) => setTimeout(r, 2));
    hubRef.hub.kill('SIGKILL');
    killed = true;
    await new Promise((r) => hubRef.hub.once('exit', r));
    hubRef.hub = await startHub();
  })();
  await Promise.all([...work, killer]);
  const db = new Database(paths.dbFile, { readonly: true });
  const rows = db.prepare(`SELECT sender, message_id, count(*) AS n FROM messages WHERE sender LIKE 'crash-%' GROUP BY sender, message_id`).all();
  const textDupes = db.prepare(`SELECT count(*) AS n FROM (SELECT text FROM messages WHERE sender LIKE 'crash-%' GROUP BY text HAVING count(*) > 1)`).get().n;
  db.close();
  const stored = new Map(rows.map((r) => [`${r.sender}|${r.message_id}`, r.n]));
  let lost = 0;
  for (const key of accepted) if (!stored.has(key)) lost++;
  const duplicates = rows.filter((r) => r.n > 1).length + textDupes;
  return { killed, accepted: accepted.size, stored: rows.length, lost, duplicates };
}

function wallMs(cmd, args, runs, extraEnv, sys = A) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { env: { ...sys.env, ...extraEnv }, cwd: root, stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return pct(times, 50);
}

/** Round trips of the MCP `send` tool through one `swb mcp` process, driven by the SDK's own client. */
async function mcpRoundTrips(n) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const t0 = process.hrtime.bigint();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [swb, 'mcp', '--as', 'mcp-bench'], env, cwd: root, stderr: 'ignore' }));
  await client.callTool({ name: 'peers', arguments: {} });
  const startMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const times = [];
  for (let i = 0; i < n + 20; i++) {
    const t = process.hrtime.bigint();
    const r = await client.callTool({ name: 'send', arguments: { to: ['sink'], text: `mcp ${i}` } });
    if (r.isError) throw new Error(`MCP send failed: ${JSON.stringify(r.content)}`);
    if (i >= 20) times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  await client.close();
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p99: pct(times, 99), startMs };
}

const hubRef = { hub: await startHub() };
try {
  const sink = await connect('sink'); // a known recipient that never reads
  sink.close();
  console.log(`Switchboard mail benchmark — ${new Date().toISOString()}, node ${process.version}, ${(await $`nproc`.quiet()).stdout.trim()} cores`);
  console.log(`hub: swb hub --max-unread 0 --rate 0 (WAL, synchronous=FULL), SWB_HOME=${home}\n`);

  await latency(200); // warm-up
  const lat = await latency(quick ? 1000 : 5000);
  console.log(`accept latency, 1 sender sequential:   p50 ${fmt(lat.p50, 3)} ms   p99 ${fmt(lat.p99, 3)} ms   (goal p50 <= 1, p99 <= 3)`);

  const per = quick ? 1000 : 4000;
  for (const senders of [1, 8, 32]) {
    const seqRate = await throughput(senders, Math.floor((per * 8) / senders) || per, 1);
    console.log(`throughput, ${String(senders).padStart(2)} sender(s), 1 in flight each:   ${fmt(seqRate, 0).padStart(6)} msg/s`);
  }
  const piped = await throughput(32, per, 8);
  console.log(`throughput, 32 senders, 8 in flight each:    ${fmt(piped, 0).padStart(6)} msg/s   (goal >= 20,000 with 32 senders)`);

  const crash = await crashRound(hubRef, quick ? 100 : 300);
  console.log(
    `crash round: 32 senders with retries, hub SIGKILLed mid-load and restarted: accepted ${crash.accepted}, stored ${crash.stored}, ` +
      `lost=${crash.lost} duplicates=${crash.duplicates}${crash.killed ? '' : ' (KILL DID NOT HAPPEN)'}`,
  );

  const runs = quick ? 10 : 30;
  const nodeMs = wallMs(process.execPath, ['-e', '0'], runs);
  const sendMs = wallMs(process.execPath, [swb, 'send', '--as', 'cli-bench', '@sink', 'hello from the cli'], runs);
  console.log(`\nwhole-process wall time (median of ${runs}): node -e 0 ${fmt(nodeMs, 1)} ms, swb send ${fmt(sendMs, 1)} ms, ratio ${fmt(sendMs / nodeMs)}x (goal <= 1.5x)`);
  // As an agent in a row runs it: the `swb` launcher the server puts first on the rows' PATH.
  const { writeSwbLauncher } = await import(join(root, 'dist', 'src', 'util', 'swb-launcher.js'));
  const launcher = join(writeSwbLauncher(join(home, 'launcher-bin')), 'swb');
  const launchedMs = wallMs(launcher, ['send', '--as', 'cli-bench', '@sink', 'hello from a row'], runs);
  const ca = env.NODE_EXTRA_CA_CERTS
    ? `; NODE_EXTRA_CA_CERTS is set here, which node reads at every start (node -e 0 and the direct swb send pay it), and the launcher keeps from swb's CLI`
    : '';
  console.log(`swb send through the rows' launcher: ${fmt(launchedMs, 1)} ms, ${fmt(launchedMs / nodeMs)}x node -e 0${ca}`);
  const mcp = await mcpRoundTrips(quick ? 100 : 300);
  console.log(
    `MCP send through \`swb mcp\` (an agent's tool call, the server already running): p50 ${fmt(mcp.p50, 2)} ms, p99 ${fmt(mcp.p99, 2)} ms ` +
      `(beside one \`swb send\` process: ${fmt(sendMs / mcp.p50, 0)}x faster per message); its start to first answer ${fmt(mcp.startMs, 0)} ms`,
  );
  console.log('for scale (measured earlier on this box, not in this run): a peer HTTP+SQLite broker at synchronous=NORMAL, 4.8 ms p50 and 245 msg/s');
  console.log(`ratios vs that broker: p50 ${fmt(4.8 / lat.p50, 1)}x lower latency, ${fmt(piped / 245, 0)}x the throughput`);
  const ok = lat.p50 <= 1 && lat.p99 <= 3 && piped >= 20000 && crash.lost === 0 && crash.duplicates === 0 && sendMs / nodeMs <= 1.5;
  console.log(`\nall goals met (issue #8's): ${ok ? 'yes' : 'NO'}`);
  await sideBySideRounds(runs);
} finally {
  hubRef.hub.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  rmSync(home, { recursive: true, force: true });
  rmSync(F.home, { recursive: true, force: true });
  if (B !== undefined) rmSync(B.home, { recursive: true, force: true });
}

/**
 * This build (A), the floor (F) and the --compare build (B) in rounds, each round in a rotated
 * order so a machine that drifts moves them alike; medians of the rounds.
 */
async function sideBySideRounds(runs) {
  const reusedA = option('a-hub') === 'reused';
  // Like for like: this checkout's hub starts empty, as the floor's and the --compare build's do.
  const A2 = reusedA ? A : systemAt(swb, 'swb');
  const hubA = reusedA ? hubRef.hub : await startHub(A2);
  const hubF = await startHub(F);
  const hubB = B === undefined ? undefined : await startHub(B);
  try {
    const systems = [['A', A2], ['F', F], ...(B === undefined ? [] : [['B', B]])];
    const pidOf = { A: () => hubA.pid, F: () => hubF.pid, B: () => hubB.pid };
    for (const [, sys] of systems) {
      if (sys === A) continue;
      (await connect('sink', sys)).close();
      await latency(200, sys); // warm-up, as A had
    }
    const rounds = Number(option('rounds') ?? (quick ? 3 : 5));
    const keys = ['p50', 'p99', 'cpu', 'user', 'tp1', 'tp8', 'cpu8', 'send'];
    const figures = Object.fromEntries(systems.map(([name]) => [name, Object.fromEntries(keys.map((k) => [k, []]))]));
    for (let r = 0; r < rounds; r++) {
      const order = systems.map((_, i) => systems[(i + r) % systems.length]);
      for (const [name, sys] of order) {
        const n = quick ? 500 : 2000;
        const before = cpuSeconds(pidOf[name]());
        const l = await latency(n, sys);
        const after = cpuSeconds(pidOf[name]());
        // The hub's own CPU per sequential accept (the connect and hello of latency() included, once).
        figures[name].cpu.push(((after.user + after.system - before.user - before.system) * 1e6) / n);
        figures[name].user.push(((after.user - before.user) * 1e6) / n);
        figures[name].p50.push(l.p50);
        figures[name].p99.push(l.p99);
        figures[name].tp1.push(await throughput(32, quick ? 250 : 500, 1, sys));
        const perSender8 = quick ? 250 : 1000;
        const before8 = cpuSeconds(pidOf[name]());
        figures[name].tp8.push(await throughput(32, perSender8, 8, sys));
        const after8 = cpuSeconds(pidOf[name]());
        // The hub's CPU per message under load (32 x 8): steadier than the rate on a shared machine,
        // whose other work takes wall time from every system but not CPU time from the hub.
        figures[name].cpu8.push(((after8.user + after8.system - before8.user - before8.system) * 1e6) / (32 * perSender8));
        if (sys !== F) figures[name].send.push(wallMs(process.execPath, [sys.swb, 'send', '--as', 'cli-bench', '@sink', 'compare'], Math.ceil(runs / 3), {}, sys));
      }
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const m = (name, key) => median(figures[name][key]);
    const label = { A: 'swb', F: 'floor', B: 'swb@B' };
    console.log(
      `\nside by side: ${rounds} rounds, the systems taking turns (order rotated each round), medians of the rounds ` +
        `(swb = this checkout, floor = bench/lib/mail-floor-hub.mjs${B === undefined ? '' : `, swb@B = ${compareDir}`})` +
        (repeatIds ? '; --ids=repeat: the throughput runs repeat stored message ids (retries), the shape before' : '; every throughput run sends new mail') +
        (reusedA ? "; --a-hub=reused: swb's rounds on the first part's hub and store, the shape before" : '; every hub starts empty'),
    );
    const line = (what, key, unit, digits, goal) => {
      const cells = systems.filter(([name]) => figures[name][key].length > 0).map(([name]) => `${label[name]} ${fmt(m(name, key), digits)} ${unit}`);
      const toFloor = figures.F[key].length > 0 ? `   swb/floor ${fmt(m('A', key) / m('F', key))}x` + (B === undefined ? '' : `, swb@B/floor ${fmt(m('B', key) / m('F', key))}x`) : '';
      const ab = B === undefined ? '' : `   B/A ${fmt(m('B', key) / m('A', key))}x`;
      console.log(`  ${what.padEnd(34)} ${cells.join('   ')}${toFloor}${ab}${goal ? `   (goal ${goal})` : ''}`);
    };
    line('accept latency p50, 1 sender', 'p50', 'ms', 3, 'swb/floor <= 1.25x');
    line('accept latency p99, 1 sender', 'p99', 'ms', 3);
    line("hub's CPU per sequential accept", 'cpu', 'us', 0);
    line('  of which user (not the kernel)', 'user', 'us', 0);
    line('throughput, 32 senders x 1', 'tp1', 'msg/s', 0, 'swb/floor >= 0.7x');
    line('throughput, 32 senders x 8', 'tp8', 'msg/s', 0, 'swb/floor >= 0.7x');
    line("  hub's CPU per message at 32 x 8", 'cpu8', 'us', 1);
    line('swb send wall time', 'send', 'ms', 1);
    const met = m('A', 'p50') / m('F', 'p50') <= 1.25 && m('A', 'tp1') / m('F', 'tp1') >= 0.7 && m('A', 'tp8') / m('F', 'tp8') >= 0.7;
    console.log(`issue #33's mail goals met (p50 and both throughputs against the floor): ${met ? 'yes' : 'NO'}`);
  } finally {
    if (!reusedA) {
      hubA.kill('SIGTERM');
      await new Promise((r) => hubA.once('exit', r));
      rmSync(A2.home, { recursive: true, force: true });
    }
    hubF.kill('SIGTERM');
    hubB?.kill('SIGTERM');
  }
}
