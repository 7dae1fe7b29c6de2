// Benchmark of `vap diff` over 200 agents with 2 eval suites each, against a bare client
// that reads the same resources with the same concurrency, in the same run.
//
//   npm run build && node test/bench/ascode.mjs [--agents 200] [--runs 5]
//
// A local emulator (the built binary) gets 200 agents, each with a tool and 2 suites of 2
// scenarios; `vap pull --all` writes the project. Then, alternating, each in its own child
// process with a clean environment (NODE_EXTRA_CA_CERTS and NODE_OPTIONS removed):
//   baseline  node test/bench/ascode-bare.mjs   (GETs of every agent, its tools, its suites and
//                                                their scenarios, 8 in flight; JSON parsed)
//   vap       node bin/vap.js diff --json       (the same requests, then the files, the state,
//                                                the three-way plan and its JSON)
// Each: wall time (start-up included). The median of the runs of each is kept.
// Target: vap ≤ 1.5x the bare client. Files whose text is the one recorded at the last sync
// are not parsed (their digest is in the state); a last measure edits every file (a comment
// added) so that all 600 are parsed, for information. Nothing here is asserted by tests.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, measureChild, table, startEmulator as startLib, apiData } from './lib.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/vap.js');
const BARE = fileURLToPath(new URL('./ascode-bare.mjs', import.meta.url));
const KEY = 'key_bench_ascode';
const CLEAN = { NODE_EXTRA_CA_CERTS: undefined, NODE_OPTIONS: undefined, VAP_PROFILE: undefined, CI: undefined };

const startEmulator = () => startLib(['--org', `bench:${KEY}`]);

const api = (url, method, path, body) => apiData({ url, key: KEY }, method, path, body);

/** n agents, each with a tool, a voice, and 2 ready suites of 2 scenarios; 16 agents at a time. */
async function seed(url, n) {
  const tools = (await (await fetch(`${url}/_emulator/tools?org=bench`)).json()).orgs[0].tools;
  const one = async (i) => {
    const a = await api(url, 'POST', '/api/v1/agents', {
      name: `Bench agent ${String(i).padStart(3, '0')}`,
      instructions: `You are agent ${i}.\nGreet callers.\nAlways ask for their name.`,
      engine: 'realtime',
    });
    await api(url, 'PUT', `/api/v1/agents/${a.id}/tools`, { toolIds: [tools[i % tools.length].id] });
    for (const s of ['Smoke', 'Regression']) {
      const suite = await api(url, 'POST', `/api/v1/agents/${a.id}/evals`, { name: s, iterationsPerScenario: 1 });
      for (const k of [1, 2])
        await api(url, 'POST', `/api/v1/agents/${a.id}/evals/${suite.id}/scenarios`, {
          name: `Scenario ${k}`,
          persona: `Caller ${k}, polite`,
          goal: `Goal ${k}`,
          category: 'happy_path',
        });
      await api(url, 'PATCH', `/api/v1/agents/${a.id}/evals/${suite.id}`, { status: 'ready' });
    }
  };
  for (let i = 0; i < n; i += 16) await Promise.all(Array.from({ length: Math.min(16, n - i) }, (_, k) => one(i + k)));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;

export async function benchAscode({ agents = 200, runs = 5, log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  if (!existsSync(join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  log(`\nvap diff benchmark: ${agents} agents × 2 suites (${machineLine()})`);
  const emu = await startEmulator();
  try {
    let t = performance.now();
    await seed(emu.url, agents);
    log(`seeded ${agents} agents, ${agents * 2} suites, ${agents * 4} scenarios in ${secs(performance.now() - t)}`);
    const dir = mkdtempSync(join(tmpdir(), 'vap-bench-ascode-'));
    const env = { ...CLEAN, VAP_BASE_URL: emu.url, VAP_API_KEY: KEY, VAP_STATE_DIR: dir };
    t = performance.now();
    const pulled = await measureChild([BIN, 'pull', '--all', '--profile', 'bench'], { env, cwd: dir });
    if (pulled.code !== 0) throw new Error(`vap pull exited ${pulled.code}: ${pulled.stderr.slice(-500)}`);
    log(`vap pull --all: ${secs(pulled.wallMs)} (${agents} agent.md and ${agents * 2} suite files)`);

    const state = join(dir, '.vap', 'state.bench.json');
    const bare = [];
    const vap = [];
    let requests = 0;
    let plan;
    for (let i = 0; i < runs; i++) {
      let out = '';
      const b = await measureChild([BARE, emu.url, KEY, state], { env, cwd: dir, onStdout: (c) => (out += c) });
      if (b.code !== 0) throw new Error(`the bare client exited ${b.code}: ${b.stderr.slice(-500)}`);
      requests = Number(out.trim());
      bare.push(b.wallMs);
      let json = '';
      const v = await measureChild([BIN, 'diff', '--json', '--profile', 'bench'], { env, cwd: dir, onStdout: (c) => (json += c) });
      if (v.code !== 0) throw new Error(`vap diff exited ${v.code}: ${v.stderr.slice(-500)}`);
      plan = JSON.parse(json);
      vap.push(v.wallMs);
    }
    if (plan.changes || plan.resources.length !== agents * 3) throw new Error(`the plan should show ${agents * 3} unchanged resources`);
    const mb = median(bare);
    const mv = median(vap);
    log(
      `\n${table([
        ['command', 'requests', 'median wall', 'fastest'],
        [`bare client (8 in flight)`, requests, secs(mb), secs(Math.min(...bare))],
        [`vap diff --json`, requests, secs(mv), secs(Math.min(...vap))],
      ])}`,
    );
    const ratio = mv / mb;
    log(`\nvap diff / bare client: ${ratio.toFixed(2)}x (${ratio <= 1.5 ? 'within' : 'NOT within'} the 1.5x target)`);
    log(`every run (s): bare ${bare.map((w) => (w / 1000).toFixed(2)).join(', ')}; vap ${vap.map((w) => (w / 1000).toFixed(2)).join(', ')}`);

    // Every file edited (a comment added: the text differs from the last sync, the content
    // does not), so that every one of the 600 files is parsed and checked.
    for (const slug of readdirSync(join(dir, 'agents'))) {
      const md = join(dir, 'agents', slug, 'agent.md');
      writeFileSync(md, readFileSync(md, 'utf8').replace(/^---\n/, '---\n# edited\n'));
      for (const f of readdirSync(join(dir, 'agents', slug, 'evals'))) {
        const y = join(dir, 'agents', slug, 'evals', f);
        writeFileSync(y, `# edited\n${readFileSync(y, 'utf8')}`);
      }
    }
    const parsed = [];
    for (let i = 0; i < Math.max(1, Math.ceil(runs / 2)); i++) {
      const v = await measureChild([BIN, 'diff', '--json', '--profile', 'bench'], { env, cwd: dir });
      if (v.code !== 0) throw new Error(`vap diff exited ${v.code}: ${v.stderr.slice(-500)}`);
      parsed.push(v.wallMs);
    }
    log(
      `with every file edited since the last sync (all 600 parsed): vap diff ${secs(median(parsed))} median, ${(median(parsed) / mb).toFixed(2)}x the bare client`,
    );
    return { bare: mb, vap: mv, ratio, parsed: median(parsed) };
  } finally {
    emu.child.kill('SIGTERM');
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const a = process.argv.indexOf('--agents');
  const r = process.argv.indexOf('--runs');
  await benchAscode({ agents: a > 0 ? Number(process.argv[a + 1]) : undefined, runs: r > 0 ? Number(process.argv[r + 1]) : undefined });
}
