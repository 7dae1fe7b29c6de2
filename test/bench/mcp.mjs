// Benchmark of `vap mcp` over stdio against the emulator: every figure a ratio against a
// baseline measured in the same run.
//
//   npm run build && node test/bench/mcp.mjs [--calls 200] [--runs 11]
//
// The built emulator gets 20 agents. Then:
// 1. Request to response: `tools/call` of vap_agents_list (its first 20 agents), written as
//    one JSON-RPC line to the stdin of one `vap mcp` and timed until its answer's line is
//    read from its stdout, against the same GET (/api/v1/agents?page=1&pageSize=20, the
//    same key) made with the bare client (undici, the HTTP client vap is built on) in this
//    process, its body read and parsed. Warmed up first (both), then alternated; medians.
//    Target: <= 1.3x. In the same alternation, two floors (test/bench/mcp-reference-server.mjs):
//    a server that makes the same GET with the bare client and answers with the same fields
//    by hand, without the SDK (what any server over stdio costs: two pipe hops, a JSON line
//    each way), and the same with the SDK's McpServer (what the SDK adds). Then the CPU each costs, which a shared machine disturbs less than
//    wall times: the server's per tools/call (/proc/<pid>/stat) against this process's per
//    bare GET.
// 2. Start: a fresh `vap mcp` from its spawn to its answer to initialize (a client's first
//    request: the server has started), against `vap agents list` from its spawn to its exit
//    (start, one GET, the table); also to the answer of its first tools/call (one GET made).
//    Each child in a clean environment (PATH, HOME, NO_COLOR and the VAP_ variables: no
//    NODE_EXTRA_CA_CERTS, NODE_OPTIONS), vap's compile cache warm (one run of each first).
//    Alternated; medians. Target: started <= 1.5x.
// Nothing here is asserted by tests.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { machineLine, measureChild, startEmulator, table } from './lib.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/vap.js');
const KEY = 'key_bench_mcp';
const AGENTS = 20;

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(2)} ms`;

const REFERENCE = fileURLToPath(new URL('./mcp-reference-server.mjs', import.meta.url));

/** `vap mcp` (or another server's script and arguments) over stdio, spoken to line by line: send(message) resolves with the answer to its id. */
function startServer(env, args = [BIN, 'mcp']) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const waiting = new Map();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const at = performance.now();
    const msg = JSON.parse(line);
    const w = waiting.get(msg.id);
    if (w) {
      waiting.delete(msg.id);
      w({ msg, at });
    }
  });
  let id = 0;
  const send = (method, params) =>
    new Promise((resolve, reject) => {
      const n = ++id;
      const sent = performance.now();
      waiting.set(n, ({ msg, at }) =>
        msg.error ? reject(new Error(`${method}: ${JSON.stringify(msg.error)}`)) : resolve({ result: msg.result, ms: at - sent, at }),
      );
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`);
    });
  const notify = (method) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  const closed = new Promise((resolve) => child.once('close', resolve));
  return {
    started,
    pid: child.pid,
    send,
    notify,
    stderr: () => stderr,
    async stop() {
      child.stdin.end();
      await closed;
    },
  };
}

/** CPU time (user + system) of a process so far, in clock ticks (Linux: /proc/<pid>/stat). */
function ticks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop().split(' ');
  return Number(fields[11]) + Number(fields[12]);
}
const TICKS_PER_SECOND = 100;

const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } };
const LIST = { name: 'vap_agents_list', arguments: {} };

export async function benchMcp({ calls = arg('--calls', 200), runs = arg('--runs', 11), log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  if (!existsSync(join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  log(`\nvap mcp benchmark (${machineLine()})`);
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
  const emu = await startEmulator(['--org', `bench:${KEY}`], { env: base });
  const state = mkdtempSync(join(tmpdir(), 'vap-bench-mcp-'));
  const env = { ...base, VAP_BASE_URL: emu.url, VAP_API_KEY: KEY, VAP_CONFIG_DIR: join(state, 'config'), VAP_STATE_DIR: join(state, 'state') };
  const dispatcher = new Agent();
  try {
    for (let i = 0; i < AGENTS; i++) {
      const res = await fetch(`${emu.url}/api/v1/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `Agent ${i}`,
          instructions: 'Greet callers and book their appointments; confirm the date and time.',
          engine: 'realtime',
          variables: [],
        }),
      });
      if (!res.ok) throw new Error(`create agent: ${res.status}`);
    }

    // 1. Request to response, one server, against the bare GET in this process.
    const bare = async () => {
      const t = performance.now();
      const res = await request(`${emu.url}/api/v1/agents?page=1&pageSize=${AGENTS}`, {
        dispatcher,
        headers: { authorization: `Bearer ${KEY}`, accept: 'application/json' },
      });
      const body = await res.body.json();
      if (res.statusCode !== 200 || body.data.agents.length !== AGENTS) throw new Error(`bare GET: ${res.statusCode}`);
      return performance.now() - t;
    };
    // The floors beside it, in the same alternation: a server that makes the same GET with
    // the bare client and answers with the same fields and nothing else, by hand (no SDK:
    // the floor of any server over stdio) and with the SDK's McpServer (what the SDK adds).
    const servers = [
      { name: 'tools/call vap_agents_list over stdio (vap mcp)', args: [BIN, 'mcp'] },
      { name: 'floor: the same GET answered by hand (no SDK, no checks)', args: [REFERENCE, '--bare'] },
      { name: "floor: the same GET answered by the SDK's McpServer", args: [REFERENCE, '--sdk'] },
    ];
    const callOf = async (s) => {
      const r = await s.send('tools/call', LIST);
      if (r.result.isError || r.result.structuredContent.data.agents.length !== AGENTS)
        throw new Error(`tools/call: ${JSON.stringify(r.result).slice(0, 300)}`);
      return r.ms;
    };
    for (const s of servers) {
      s.server = startServer(env, s.args);
      await s.server.send('initialize', INIT);
      s.server.notify('notifications/initialized');
      s.ms = [];
    }
    for (let i = 0; i < 30; i++) {
      for (const s of servers) await callOf(s.server);
      await bare();
    }
    const bareMs = [];
    for (let i = 0; i < calls; i++) {
      for (const s of servers) s.ms.push(await callOf(s.server));
      bareMs.push(await bare());
    }
    for (const s of servers) await s.server.stop();
    const mcpMs = servers[0].ms;

    // The CPU each costs (robust where the machine is shared: the wall times above include
    // every process woken on the way): the server's CPU time per tools/call (from
    // /proc/<pid>/stat, over `calls` more calls) against this process's per bare GET.
    const cpuServer = startServer(env);
    await cpuServer.send('initialize', INIT);
    cpuServer.notify('notifications/initialized');
    for (let i = 0; i < 30; i++) await cpuServer.send('tools/call', LIST);
    const n = calls * 3;
    const cpuPer = async (method, params) => {
      const before = ticks(cpuServer.pid);
      for (let i = 0; i < n; i++) await cpuServer.send(method, params);
      return ((ticks(cpuServer.pid) - before) * 1000) / TICKS_PER_SECOND / n;
    };
    const serverCpu = await cpuPer('tools/call', LIST);
    // The protocol's own floor: a ping, through the same stdio and JSON-RPC, no tool, no GET.
    const pingCpu = await cpuPer('ping');
    await cpuServer.stop();
    const own = process.cpuUsage();
    for (let i = 0; i < n; i++) await bare();
    const used = process.cpuUsage(own);
    const bareCpu = (used.user + used.system) / 1000 / n;
    const cpuRatio = serverCpu / bareCpu;

    const call = median(mcpMs) / median(bareMs);
    log(`\nRequest to response, ${calls} calls each after 30 to warm up, alternated with the bare GET; medians (and 90th percentiles)`);
    const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];
    log(
      table([
        ['what', 'median', 'p90', 'ratio'],
        [`bare GET /api/v1/agents?pageSize=${AGENTS} (undici, this process)`, ms(median(bareMs)), ms(p90(bareMs)), '1.00x'],
        ...servers.map((s) => [s.name, ms(median(s.ms)), ms(p90(s.ms)), `${(median(s.ms) / median(bareMs)).toFixed(2)}x`]),
      ]),
    );
    const floorBare = median(servers[1].ms) / median(bareMs);
    const floorSdk = median(servers[2].ms) / median(bareMs);
    log(
      `tools/call / bare GET: ${call.toFixed(2)}x (${call <= 1.3 ? 'within' : 'NOT within'} the 1.3x target); the floors: ${floorBare.toFixed(2)}x without the SDK, ${floorSdk.toFixed(2)}x with it`,
    );
    log(
      `CPU per request over ${n} more: the server ${ms(serverCpu)} per tools/call (the GET and all it adds; ${ms(pingCpu)} per ping, the protocol's floor), this process ${ms(bareCpu)} per bare GET: ${cpuRatio.toFixed(2)}x`,
    );

    // 2. Start: a fresh server to its first answer, against `vap agents list` to its exit.
    const listArgs = [BIN, 'agents', 'list', '--limit', String(AGENTS)];
    const fresh = async () => {
      const s = startServer(env);
      const init = await s.send('initialize', INIT);
      s.notify('notifications/initialized');
      const first = await s.send('tools/call', LIST);
      if (first.result.isError) throw new Error(`first tools/call: ${JSON.stringify(first.result).slice(0, 300)}`);
      await s.stop();
      return { init: init.at - s.started, first: first.at - s.started };
    };
    // The compile cache warm: one run of each first.
    await fresh();
    await measureChild(listArgs, { env, cwd: ROOT });
    const inits = [];
    const firsts = [];
    const lists = [];
    for (let i = 0; i < runs; i++) {
      const f = await fresh();
      inits.push(f.init);
      firsts.push(f.first);
      const l = await measureChild(listArgs, { env, cwd: ROOT });
      if (l.code !== 0) throw new Error(`vap agents list exited ${l.code}: ${l.stderr.slice(-300)}`);
      lists.push(l.wallMs);
    }
    // The server has started when it answers initialize (a client's first request); its first tools/call is shown too.
    const start = median(inits) / median(lists);
    const firstCall = median(firsts) / median(lists);
    log(`\nStart, ${runs} runs each, alternated, compile cache warm; medians`);
    log(
      table([
        ['what', 'median', 'ratio to vap agents list'],
        [`vap agents list --limit ${AGENTS}: spawn to exit`, ms(median(lists)), '1.00x'],
        ['vap mcp: spawn to the initialize answer (started)', ms(median(inits)), `${start.toFixed(2)}x`],
        ['vap mcp: spawn to the first tools/call answer (and one GET)', ms(median(firsts)), `${firstCall.toFixed(2)}x`],
      ]),
    );
    log(
      `vap mcp started / vap agents list: ${start.toFixed(2)}x (${start <= 1.5 ? 'within' : 'NOT within'} the 1.5x target); to its first tools/call answer: ${firstCall.toFixed(2)}x`,
    );
    return { call, cpu: cpuRatio, start, firstCall, floorBare, floorSdk };
  } finally {
    await dispatcher.close();
    emu.child.kill('SIGTERM');
    rmSync(state, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await benchMcp();
