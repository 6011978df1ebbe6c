#!/usr/bin/env node
// npm run bench:federation — mail across machines, measured against its floor in the same run:
// a nats-server with JetStream (temp store), two swb hubs as nodes alpha and beta (each its own
// SWB_HOME and store, FULL sync), and
//   floor:  a bare JetStream publish → durable pull consumer → ack round trip on the same server;
//   local:  a send on beta to a subscribed session on beta, until the push arrives;
//   remote: a send on alpha to a subscribed session on beta, until the push arrives (custody on
//           both sides: alpha's outbox commit before "accepted", beta's inbox commit before the ack);
//   throughput: 32 senders on alpha to 4 sessions on beta, first send to last arrival, with one send
//           in flight per sender and with eight (as bench:mail measures the local hub).
//   commit: one SQLite commit with synchronous=FULL (WAL) on the same disk: what custody on the
//           sending side adds to the floor at the least ("accepted" waits for it; the floor has no
//           disk in it), so the report also gives remote against floor + commit.
// Goals (issue #14): remote p50 <= 2x the floor's; throughput >= 5,000 msg/s across nodes. Issue #33's:
// remote p50 <= local p50 + the floor's p50 + one FULL commit's p50, all from the same run.
//   --compare=DIR  also starts two nodes of the swb built in checkout DIR (a git worktree of the base,
//           built) on the same nats-server, and measures floor, commit, local and remote of both builds
//           in rounds, taking turns (order rotated each round): medians of the rounds' p50s, side by side.
//   --rounds=N  rounds of --compare (default 5)
//   node bench/federation.mjs [--quick] [--compare=DIR] [--rounds=N]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import Database from 'better-sqlite3';

const root = fileURLToPath(new URL('..', import.meta.url));
const swb = join(root, 'dist', 'bin', 'swb.js');
const { HubClient } = await import(join(root, 'dist', 'src', 'client', 'hub-client.js'));
const { resolveRuntimePaths } = await import(join(root, 'dist', 'src', 'hub', 'runtime-paths.js'));
const quick = process.argv.includes('--quick');
const LAT_N = quick ? 200 : 1000;
const TPUT_N = quick ? 4000 : 20000;
const SENDERS = 32;
const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const compareDir = option('compare');
const compareSwb = compareDir === undefined ? undefined : join(compareDir, 'dist', 'bin', 'swb.js');
if (compareSwb !== undefined && !existsSync(compareSwb)) {
  console.error(`--compare: ${compareSwb} is missing (build that checkout first)`);
  process.exit(2);
}

if (spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).status !== 0) {
  console.error('bench:federation needs nats-server (Debian package nats-server; `node test/federation/run.mjs` installs it).');
  process.exit(1);
}

const base = mkdtempSync(join(tmpdir(), 'swb-bench-fed-'));
const children = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(base, { recursive: true, force: true });
});

const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const url = `nats://127.0.0.1:${port}`;

function waitFor(child, pattern, what) {
  return new Promise((resolve, reject) => {
    let out = '';
    const on = (d) => {
      out += d;
      if (pattern.test(out)) resolve(child);
    };
    child.stdout?.on('data', on);
    child.stderr?.on('data', on);
    child.once('exit', (code) => reject(new Error(`${what} exited ${code}: ${out}`)));
  });
}

const nats = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', join(base, 'js')], { stdio: ['ignore', 'pipe', 'pipe'] });
children.push(nats);
await waitFor(nats, /Server is ready/, 'nats-server');

async function startNode(name, swbBin = swb) {
  const home = join(base, name, 'home');
  const ws = join(base, name, 'ws');
  mkdirSync(home, { recursive: true, mode: 0o700 });
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'switchboard.json'), JSON.stringify({ federation: { url, node: name }, limits: { rate: 0, maxUnread: 0 } }));
  const env = { ...process.env, SWB_HOME: home };
  for (const k of ['SWB_SOCKET', 'SWB_SESSION', 'SWB_TOKEN', 'SWB_CONFIG']) delete env[k];
  const prof = process.env.BENCH_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', join(process.env.BENCH_PROF_DIR, name)] : [];
  // --config: the node's own file (a workspace's switchboard.json joins no federation until trusted).
  const child = spawn(process.execPath, [...prof, swbBin, 'hub', '--config', join(ws, 'switchboard.json')], { cwd: ws, env, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  child.stderr.setEncoding('utf8');
  await waitFor(child, /listening on/, `node ${name}`);
  const paths = resolveRuntimePaths({ cwd: ws, env });
  return {
    name,
    async session(handle, subscribe = false) {
      const c = await HubClient.open(paths.socketPath);
      await c.sayHello({ session: handle }, { subscribe });
      return c;
    },
  };
}

const [alpha, beta] = await Promise.all([startNode('alpha'), startNode('beta')]);
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))];
};
const ms = (n) => n.toFixed(2);

/** Sequential sends, each timed from the request to the push at the receiver. */
async function sendToArrival(from, to, address, n, tag) {
  const arrived = new Map();
  const listener = to.onPush((p) => {
    if (p.method !== 'mail.arrived') return;
    const r = arrived.get(p.params.message.text);
    if (r) r(performance.now());
  });
  const times = [];
  const accepted = [];
  for (let i = 0; i < n; i++) {
    const text = `${tag} ${i}`;
    const got = new Promise((r) => arrived.set(text, r));
    const t0 = performance.now();
    await from.request('mail.send', { to: [address], text });
    accepted.push(performance.now() - t0);
    times.push((await got) - t0);
    arrived.delete(text);
  }
  listener.dispose();
  times.accepted = accepted;
  return times;
}

// Floor: publish with an ack from the stream, pulled by a durable consumer, acked: per message.
async function floor(n, withThroughput = true) {
  const nc = await connect({ servers: url });
  const jsm = await jetstreamManager(nc);
  if (!(await jsm.streams.info('FLOOR').catch(() => null))) {
    await jsm.streams.add({ name: 'FLOOR', subjects: ['floor.>'] });
    await jsm.consumers.add('FLOOR', { durable_name: 'floor', ack_policy: AckPolicy.Explicit, filter_subject: 'floor.>' });
  }
  const js = jetstream(nc);
  const consumer = await js.consumers.get('FLOOR', 'floor');
  const waiting = new Map();
  const messages = await consumer.consume({ max_messages: 1000 });
  void (async () => {
    for await (const m of messages) {
      m.ack();
      waiting.get(m.string())?.(performance.now());
    }
  })();
  const times = [];
  const round = floorRound++;
  for (let i = 0; i < n; i++) {
    const text = `f${round}-${i}`;
    const got = new Promise((r) => waiting.set(text, r));
    const t0 = performance.now();
    await js.publish('floor.x', text, { msgID: text });
    times.push((await got) - t0);
    waiting.delete(text);
  }
  if (!withThroughput) {
    messages.stop();
    await nc.close();
    return { times, rate: 0 };
  }
  // Throughput floor: pipelined publishes of the same count as the swb run below.
  const tput = new Promise((resolve) => {
    let seen = 0;
    const t0 = performance.now();
    waiting.clear();
    const total = TPUT_N;
    const done = () => resolve(total / ((performance.now() - t0) / 1000));
    for (let i = 0; i < total; i++) waiting.set(`t${i}`, () => ++seen === total && done());
    const window = [];
    void (async () => {
      for (let i = 0; i < total; i++) {
        window.push(js.publish('floor.t', `t${i}`, { msgID: `t${i}` }));
        if (window.length >= 512) await Promise.all(window.splice(0));
      }
      await Promise.all(window);
    })();
  });
  const rate = await tput;
  messages.stop();
  await nc.close();
  return { times, rate };
}

let floorRound = 0;

/** One-row commits, WAL and synchronous=FULL as mail.db has them, each timed. */
function commits(n) {
  const db = new Database(join(base, 'commit-floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, text TEXT)');
  const insert = db.prepare('INSERT INTO t (text) VALUES (?)');
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    insert.run(`commit ${i}`);
    times.push(performance.now() - t0);
  }
  db.close();
  return times;
}

/** SENDERS sessions on alpha, each with `inFlight` sends outstanding (as bench:mail measures), to 4 sessions on beta. */
async function throughput(inFlight, tag) {
  const receivers = await Promise.all([0, 1, 2, 3].map((i) => beta.session(`${tag}r${i}`, true)));
  let seen = 0;
  let resolveAll;
  const all = new Promise((r) => (resolveAll = r));
  for (const r of receivers) r.onPush((p) => p.method === 'mail.arrived' && ++seen === TPUT_N && resolveAll(performance.now()));
  const senders = await Promise.all(Array.from({ length: SENDERS }, (_, i) => alpha.session(`${tag}w${i}`)));
  const per = TPUT_N / SENDERS;
  const t0 = performance.now();
  let acceptedAt = 0;
  await Promise.all(
    senders.flatMap((s, i) =>
      Array.from({ length: inFlight }, async (_, lane) => {
        for (let k = lane; k < per; k += inFlight) await s.request('mail.send', { to: [`${tag}r${(i + k) % 4}@beta`], text: `w${i} ${k}` });
      }),
    ),
  ).then(() => (acceptedAt = performance.now()));
  const end = await all;
  return { rate: TPUT_N / ((end - t0) / 1000), acceptRate: TPUT_N / ((acceptedAt - t0) / 1000) };
}

console.log(`bench:federation — nats-server ${spawnSync('nats-server', ['--version']).stdout.toString().trim()}, ${LAT_N} sequential sends per path, ${TPUT_N} for throughput`);
const fl = await floor(LAT_N);
const commit = commits(LAT_N);
const localTo = await beta.session('lrecv', true);
const localFrom = await beta.session('lsend');
const local = await sendToArrival(localFrom, localTo, 'lrecv', LAT_N, 'local');
const remoteTo = await beta.session('rrecv', true);
const remoteFrom = await alpha.session('rsend');
// Presence of rrecv must not matter: custody does not wait for it. Warm the link first.
await sendToArrival(remoteFrom, remoteTo, 'rrecv@beta', 20, 'warm');
const remote = await sendToArrival(remoteFrom, remoteTo, 'rrecv@beta', LAT_N, 'remote');
const tp = await throughput(1, 'a');
const tp8 = await throughput(8, 'b');

const row = (name, xs) => `${name.padEnd(34)} p50 ${ms(pct(xs, 50)).padStart(7)} ms   p99 ${ms(pct(xs, 99)).padStart(7)} ms`;
console.log(row('floor: JetStream publish→consume', fl.times));
console.log(row('local send → push (beta)', local));
console.log(row('remote send alpha → push at beta', remote));
console.log(row('  of which: accepted at alpha', remote.accepted));
console.log(row('one FULL commit (same disk)', commit));
console.log(`remote/floor: p50 ${(pct(remote, 50) / pct(fl.times, 50)).toFixed(2)}x  p99 ${(pct(remote, 99) / pct(fl.times, 99)).toFixed(2)}x   (goal p50 <= 2x)`);
const custody = pct(fl.times, 50) + pct(commit, 50);
console.log(`remote/(floor + one FULL commit = ${ms(custody)} ms): p50 ${(pct(remote, 50) / custody).toFixed(2)}x`);
console.log(`throughput across nodes, ${SENDERS} senders, 1 in flight each: ${Math.round(tp.rate)} msg/s delivered (accepted at ${Math.round(tp.acceptRate)} msg/s)`);
console.log(`throughput across nodes, ${SENDERS} senders, 8 in flight each: ${Math.round(tp8.rate)} msg/s delivered (accepted at ${Math.round(tp8.acceptRate)} msg/s)   (goal >= 5,000 msg/s)`);
console.log(`floor: pipelined JetStream publish→consume ${Math.round(fl.rate)} msg/s`);
const goal33 = pct(local, 50) + custody;
console.log(`issue #33: remote p50 ${ms(pct(remote, 50))} ms against local + floor + one FULL commit = ${ms(goal33)} ms: ${(pct(remote, 50) / goal33).toFixed(2)}x   (goal <= 1x)`);
if (compareSwb !== undefined) await compareRounds();

/**
 * This build's nodes (alpha, beta) and the --compare build's (alphaB, betaB) on the same nats-server,
 * with the floor and the commit, in rounds: each round every path once, the order rotated.
 */
async function compareRounds() {
  const [alphaB, betaB] = await Promise.all([startNode('alphaB', compareSwb), startNode('betaB', compareSwb)]);
  const rounds = Number(option('rounds') ?? 5);
  const n = Math.max(50, Math.round(LAT_N / rounds));
  const paths = {
    A: { from: alpha, to: beta, remote: 'beta' },
    B: { from: alphaB, to: betaB, remote: 'betaB' },
  };
  const sessions = {};
  for (const [name, p] of Object.entries(paths)) {
    sessions[name] = {
      localTo: await p.to.session(`cl${name}`, true),
      localFrom: await p.to.session(`cls${name}`),
      remoteTo: await p.to.session(`cr${name}`, true),
      remoteFrom: await p.from.session(`crs${name}`),
    };
    await sendToArrival(sessions[name].remoteFrom, sessions[name].remoteTo, `cr${name}@${p.remote}`, 20, `cwarm${name}`);
  }
  const fig = { floor: [], commit: [], A: { local: [], remote: [], accepted: [] }, B: { local: [], remote: [], accepted: [] } };
  const steps = [
    async () => fig.floor.push(pct((await floor(n, false)).times, 50)),
    async () => fig.commit.push(pct(commits(n), 50)),
    ...['A', 'B'].map((name) => async () => {
      const s = sessions[name];
      fig[name].local.push(pct(await sendToArrival(s.localFrom, s.localTo, `cl${name}`, n, `cl${name}`), 50));
      const r = await sendToArrival(s.remoteFrom, s.remoteTo, `cr${name}@${paths[name].remote}`, n, `cr${name}`);
      fig[name].remote.push(pct(r, 50));
      fig[name].accepted.push(pct(r.accepted, 50));
    }),
  ];
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < steps.length; i++) await steps[(i + round) % steps.length]();
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`\n--compare=${compareDir}: ${rounds} rounds of ${n} sequential sends per path, taking turns; medians of the rounds' p50s (swb = this checkout, swb@B = that one)`);
  const row2 = (what, a, b) => console.log(`  ${what.padEnd(36)} swb ${ms(a).padStart(6)} ms   swb@B ${ms(b).padStart(6)} ms   B/A ${(b / a).toFixed(2)}x`);
  console.log(`  ${'floor: JetStream publish→consume'.padEnd(36)} ${ms(med(fig.floor))} ms;  one FULL commit ${ms(med(fig.commit))} ms`);
  row2('local send → push', med(fig.A.local), med(fig.B.local));
  row2('remote send → push', med(fig.A.remote), med(fig.B.remote));
  row2('  of which: accepted at the sender', med(fig.A.accepted), med(fig.B.accepted));
  for (const name of ['A', 'B']) {
    const goal = med(fig[name].local) + med(fig.floor) + med(fig.commit);
    console.log(`  ${name === 'A' ? 'swb  ' : 'swb@B'}: remote / (local + floor + one FULL commit = ${ms(goal)} ms) = ${(med(fig[name].remote) / goal).toFixed(2)}x   (issue #33's goal <= 1x)`);
  }
}
if (process.env.BENCH_PROF_DIR) {
  // Profiles are written when the hubs exit cleanly.
  for (const c of children.slice(1)) c.kill('SIGTERM');
  await Promise.all(children.slice(1).map((c) => new Promise((r) => (c.exitCode !== null ? r() : c.once('exit', r)))));
}
process.exit(0);
