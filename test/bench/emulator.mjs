// Benchmark of the emulator at scale, as ratios measured in the same run:
//
//   npm run build && node test/bench/emulator.mjs [--rounds 3] [--writes 150] [--contacts 250000] [--calls 200000] [--only writes|calls|rps]
//
// 1. Write latency (POST /api/v1/agents, sequential, one client) against three emulators
//    running at once (the built binary, time scale 1000):
//      small   --data-dir, 1,000 contacts
//      big     --data-dir, 250,000 contacts
//      memory  no --data-dir, 250,000 contacts
//    The writes alternate between them in rounds (the machine may be shared). Targets:
//    big / small ≤ 1.5x (a write costs the change, not the state), big / memory ≤ 3x
//    (durable before acknowledged: one fdatasync, shared by concurrent writes).
// 2. `vap calls list --all -o ndjson` over 200,000 calls against 20,000 (seeded history, two
//    organizations of one emulator): wall time and the CLI's peak RSS. Targets: ≤ 12x the
//    time (linear in the data), ≤ 1.2x the memory.
// 3. Throughput of GET /api/v1/agents/{id}, GET /api/v1/agents?pageSize=20 and POST
//    /api/v1/agents against a bare Fastify server (the same Fastify) that returns the same
//    bodies, with 10 connections from an undici Pool, alternating 3 s runs; also the servers'
//    CPU time per request (from /proc). Target: GET ≥ 0.8x.
//
// Each child runs with a clean environment (no NODE_EXTRA_CA_CERTS and the like). Nothing
// here is asserted by tests.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { machineLine, mb, measureChild, table, startEmulator as startLib } from './lib.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/vap.js');

/** The environment of every child: PATH and HOME only, so that nothing slows a start (NODE_EXTRA_CA_CERTS costs ~40 ms). */
function cleanEnv(extra = {}) {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), NO_COLOR: '1', ...extra };
}

const startEmulator = (args) => startLib(['--time-scale', '1000', ...args]);

/** A bare Fastify server answering the given bodies (the same Fastify the emulator uses). */
function startBare(bodies) {
  const dir = mkdtempSync(join(tmpdir(), 'vap-bench-bare-'));
  const file = join(dir, 'bodies.json');
  writeFileSync(file, JSON.stringify(bodies));
  const code = `
    import Fastify from ${JSON.stringify(join(ROOT, 'node_modules/fastify/fastify.js'))};
    import { readFileSync } from 'node:fs';
    const b = JSON.parse(readFileSync(${JSON.stringify(file)}, 'utf8'));
    const app = Fastify({ logger: false });
    app.get('/api/v1/agents/:id', async () => b.one);
    app.get('/api/v1/agents', async () => b.list);
    app.post('/api/v1/agents', async (req, reply) => reply.code(201).send(b.created));
    await app.listen({ port: 0, host: '127.0.0.1' });
    console.log(JSON.stringify({ url: 'http://127.0.0.1:' + app.server.address().port }));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, url: JSON.parse(line).url, dir }));
    child.once('exit', (c) => reject(new Error(`the bare server exited (${c})`)));
  });
}

const authFor = (path, key) =>
  /^\/api\/v1\/(contact-lists|import-jobs|calls|campaigns|analytics)/.test(path) ? { 'x-api-key': key } : { authorization: `Bearer ${key}` };

async function api(url, key, method, path, body) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...authFor(path, key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Fills a list with `count` contacts, 10,000 per import, and waits for every job. */
async function fill(emu, key, count) {
  const list = (
    await api(emu.url, key, 'POST', '/api/v1/contact-lists', {
      name: 'Bench',
      schema: {
        fields: [
          { name: 'name', type: 'string', required: true },
          { name: 'phone', type: 'phone', required: true },
          { name: 'email', type: 'email' },
        ],
      },
    })
  ).data.id;
  const jobs = [];
  for (let start = 0; start < count; start += 10_000) {
    const rows = [];
    for (let i = start; i < Math.min(count, start + 10_000); i++)
      rows.push({ name: `Contact number ${i}`, phone: `+1415${String(2_000_000 + i).padStart(7, '0')}`, email: `contact${i}@example.com` });
    jobs.push((await api(emu.url, key, 'POST', `/api/v1/contact-lists/${list}/contacts`, { contacts: rows })).jobId);
  }
  for (const id of jobs) {
    for (;;) {
      const j = await api(emu.url, key, 'GET', `/api/v1/import-jobs/${id}`);
      if (j.status === 'completed') break;
      if (j.status === 'failed') throw new Error(`import ${id} failed: ${j.message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return list;
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x) => `${x.toFixed(2)} ms`;
const ratio = (x) => `${x.toFixed(2)}x`;
const du = (dir) => readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);

async function benchWrites({ rounds, writes, contacts, log }) {
  const KEY = 'key_bench_writes';
  const dir = mkdtempSync(join(tmpdir(), 'vap-bench-writes-'));
  const org = ['--org', `bench:${KEY}`];
  const setups = [
    { name: 'small', label: '--data-dir, 1,000 contacts', args: [...org, '--data-dir', join(dir, 'small')], contacts: 1000 },
    { name: 'big', label: `--data-dir, ${contacts.toLocaleString('en-US')} contacts`, args: [...org, '--data-dir', join(dir, 'big')], contacts },
    { name: 'memory', label: `no --data-dir, ${contacts.toLocaleString('en-US')} contacts`, args: org, contacts },
  ];
  const emus = {};
  try {
    for (const s of setups) {
      const t = performance.now();
      emus[s.name] = await startEmulator(s.args);
      await fill(emus[s.name], KEY, s.contacts);
      log(`${s.name}: ${s.label} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    const lat = { small: [], big: [], memory: [] };
    const body = JSON.stringify({ name: 'Bench agent', instructions: 'Help callers book and move their appointments.', engine: 'realtime' });
    const post = async (emu) => {
      const t = performance.now();
      const res = await fetch(`${emu.url}/api/v1/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body,
      });
      await res.arrayBuffer();
      if (res.status !== 201) throw new Error(`POST /api/v1/agents: ${res.status}`);
      return performance.now() - t;
    };
    for (const s of setups) for (let i = 0; i < 20; i++) await post(emus[s.name]); // warm up
    for (let r = 0; r < rounds; r++) for (const s of setups) for (let i = 0; i < writes; i++) lat[s.name].push(await post(emus[s.name]));
    const rows = [['write (POST /api/v1/agents)', 'median', 'p90', 'p99']];
    for (const s of setups) rows.push([s.label, ms(quantile(lat[s.name], 0.5)), ms(quantile(lat[s.name], 0.9)), ms(quantile(lat[s.name], 0.99))]);
    log(`\n${table(rows)}`);
    const m = (n) => quantile(lat[n], 0.5);
    log(`\nstate on disk: ${(du(join(dir, 'big')) / 1048576).toFixed(0)} MB (big), ${(du(join(dir, 'small')) / 1048576).toFixed(1)} MB (small)`);
    log(
      `write median big / small: ${ratio(m('big') / m('small'))} (target ≤ 1.5x); big with / without --data-dir: ${ratio(m('big') / m('memory'))} (target ≤ 3x)`,
    );
    log(`(${rounds} rounds of ${writes} writes each, alternating between the three)`);
    return { bigOverSmall: m('big') / m('small'), diskOverMemory: m('big') / m('memory') };
  } finally {
    for (const e of Object.values(emus)) e.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchCallsAll({ rounds, calls, log }) {
  const small = { key: 'key_bench_small', count: calls / 10 };
  const big = { key: 'key_bench_big', count: calls };
  const emu = await startEmulator(['--org', `small:${small.key}`, '--org', `big:${big.key}`]);
  try {
    for (const [name, o] of [
      ['small', small],
      ['big', big],
    ]) {
      for (let left = o.count; left > 0; left -= 200_000)
        await api(emu.url, o.key, 'POST', '/_emulator/calls/seed', { org: name, count: Math.min(200_000, left) });
    }
    let lines = 0;
    const onStdout = (c) => {
      for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
    };
    const run = async (o) => {
      lines = 0;
      const r = await measureChild([BIN, 'calls', 'list', '--all', '-o', 'ndjson'], {
        cwd: ROOT,
        env: cleanEnv({ VAP_BASE_URL: emu.url, VAP_API_KEY: o.key }),
        onStdout,
      });
      if (r.code !== 0) throw new Error(`vap calls list exited ${r.code}: ${r.stderr.slice(-300)}`);
      if (lines !== o.count) throw new Error(`--all printed ${lines} rows, not ${o.count}`);
      return r;
    };
    await run(small); // warm up (the first listing builds the indexes)
    await run(big);
    const res = { small: [], big: [] };
    for (let r = 0; r < rounds; r++) {
      res.small.push(await run(small));
      res.big.push(await run(big));
    }
    const best = (rs) => ({ wallMs: Math.min(...rs.map((r) => r.wallMs)), rssKb: Math.max(...rs.map((r) => r.rssKb)) });
    const s = best(res.small);
    const b = best(res.big);
    log(
      `\n${table([
        ['vap calls list --all -o ndjson', 'rows', 'wall', 'rows/s', 'peak RSS'],
        [
          `${small.count.toLocaleString('en-US')} calls`,
          small.count.toLocaleString('en-US'),
          `${(s.wallMs / 1000).toFixed(2)} s`,
          `${Math.round((small.count * 1000) / s.wallMs).toLocaleString('en-US')}/s`,
          mb(s.rssKb),
        ],
        [
          `${big.count.toLocaleString('en-US')} calls`,
          big.count.toLocaleString('en-US'),
          `${(b.wallMs / 1000).toFixed(2)} s`,
          `${Math.round((big.count * 1000) / b.wallMs).toLocaleString('en-US')}/s`,
          mb(b.rssKb),
        ],
      ])}`,
    );
    log(
      `\n--all over ${big.count.toLocaleString('en-US')} / over ${small.count.toLocaleString('en-US')}: time ${ratio(b.wallMs / s.wallMs)} (target ≤ 12x), peak RSS ${ratio(b.rssKb / s.rssKb)} (target ≤ 1.2x); fastest of ${rounds} kept, RSS the highest seen`,
    );
    return { time: b.wallMs / s.wallMs, rss: b.rssKb / s.rssKb };
  } finally {
    emu.child.kill('SIGTERM');
  }
}

const cpuOf = (pid) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // ms (USER_HZ 100)
  } catch {
    return NaN;
  }
};

/** Requests per second (and the server's CPU µs per request) over `ms` with `conns` connections. */
async function load(server, req, ms = 3000, conns = 10) {
  const pool = new Pool(server.url, { connections: conns, pipelining: 1 });
  let n = 0;
  const c0 = cpuOf(server.child.pid);
  const t0 = performance.now();
  const end = t0 + ms;
  await Promise.all(
    Array.from({ length: conns }, async () => {
      while (performance.now() < end) {
        const r = await pool.request(req());
        await r.body.dump();
        n++;
      }
    }),
  );
  const took = performance.now() - t0;
  const cpu = cpuOf(server.child.pid) - c0;
  await pool.close();
  return { rps: (n * 1000) / took, cpuUs: (cpu * 1000) / n };
}

async function benchThroughput({ rounds, log }) {
  const KEY = 'key_bench_rps';
  const emu = await startEmulator(['--org', `bench:${KEY}`]);
  let bare;
  try {
    let agent;
    for (let i = 0; i < 30; i++)
      agent = (
        await api(emu.url, KEY, 'POST', '/api/v1/agents', {
          name: `Agent ${i}`,
          instructions: 'Help callers book and move their appointments.',
          engine: 'realtime',
        })
      ).data.id;
    const postBody = JSON.stringify({ name: 'Bench agent', instructions: 'Help callers.', engine: 'realtime' });
    const bodies = {
      one: await api(emu.url, KEY, 'GET', `/api/v1/agents/${agent}`),
      list: await api(emu.url, KEY, 'GET', '/api/v1/agents?pageSize=20'),
      created: await api(emu.url, KEY, 'POST', '/api/v1/agents', JSON.parse(postBody)),
    };
    bare = await startBare(bodies);
    const auth = { authorization: `Bearer ${KEY}` };
    const cases = [
      ['GET /api/v1/agents/{id}', () => ({ path: `/api/v1/agents/${agent}`, method: 'GET', headers: auth })],
      ['GET /api/v1/agents?pageSize=20', () => ({ path: '/api/v1/agents?pageSize=20', method: 'GET', headers: auth })],
      ['POST /api/v1/agents', () => ({ path: '/api/v1/agents', method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: postBody })],
    ];
    const rows = [['request', 'emulator', 'bare Fastify', 'ratio', 'CPU/req emulator', 'CPU/req bare']];
    const out = {};
    for (const [name, req] of cases) {
      const e = [];
      const b = [];
      await load(emu, req, 800); // warm up both
      await load(bare, req, 800);
      for (let r = 0; r < rounds; r++) {
        e.push(await load(emu, req));
        b.push(await load(bare, req));
      }
      const er = Math.max(...e.map((x) => x.rps));
      const br = Math.max(...b.map((x) => x.rps));
      const ec = Math.min(...e.map((x) => x.cpuUs));
      const bc = Math.min(...b.map((x) => x.cpuUs));
      out[name] = er / br;
      rows.push([
        name,
        `${Math.round(er).toLocaleString('en-US')}/s`,
        `${Math.round(br).toLocaleString('en-US')}/s`,
        ratio(er / br),
        `${ec.toFixed(1)} µs`,
        `${bc.toFixed(1)} µs`,
      ]);
    }
    log(`\n${table(rows)}`);
    log(
      `\nGET throughput / bare Fastify: ${ratio(out['GET /api/v1/agents/{id}'])} and ${ratio(out['GET /api/v1/agents?pageSize=20'])} (target ≥ 0.8x); POST ${ratio(out['POST /api/v1/agents'])} (the emulator validates and stores; reported, no target)`,
    );
    log(`(10 connections, ${rounds} alternating 3 s runs per server, the best kept; a POST creates an agent and its first version)`);
    return out;
  } finally {
    emu.child.kill('SIGTERM');
    bare?.child.kill('SIGTERM');
    if (bare) rmSync(bare.dir, { recursive: true, force: true });
  }
}

export async function benchEmulator({ rounds = 3, writes = 150, contacts = 250_000, calls = 200_000, only, log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  if (!existsSync(join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  log(`\nemulator at scale (${machineLine()})`);
  const out = {};
  if (!only || only === 'writes') {
    log('\n1. a write with --data-dir costs the change, not the state');
    out.writes = await benchWrites({ rounds, writes, contacts, log });
  }
  if (!only || only === 'calls') {
    log('\n2. listings linear in the page: vap calls list --all');
    out.calls = await benchCallsAll({ rounds, calls, log });
  }
  if (!only || only === 'rps') {
    log('\n3. per-request overhead against a bare Fastify server returning the same bodies');
    out.rps = await benchThroughput({ rounds, log });
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (name) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const o = process.argv.indexOf('--only');
  await benchEmulator({
    rounds: arg('rounds'),
    writes: arg('writes'),
    contacts: arg('contacts'),
    calls: arg('calls'),
    only: o > 0 ? process.argv[o + 1] : undefined,
  });
}
