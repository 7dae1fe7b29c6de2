// The as-code fast paths re-measured (src/ascode/README.md, "The fast paths"): each command with
// every build given, in turn, against one emulator, at ascode-flow.mjs's scale. A build "without"
// one fast path is a copy of the repository with a one-line patch routing to its reference,
// bundled there (node src/build/bundle.mjs); the first build is the one the others are compared with.
//
//   node test/bench/ascode-fast-paths.mjs --build with=. --build noread=/tmp/vap-noread [--only diff,push,promote,pull]
//     [--runs 11] [--agents 2000] [--pull 1000]
//
// Each command's CPU (user + system, from wait4 through python3) and wall time; the figure is the
// median of paired differences (same round) against the first build. Nothing here is asserted by tests.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const arg = (n, d) => (process.argv.indexOf(n) > 0 ? process.argv[process.argv.indexOf(n) + 1] : d);
const RUNS = Number(arg('--runs', 11));
const BIG = Number(arg('--agents', 2000));
const PULLN = Number(arg('--pull', 1000));
const ONLY = arg('--only', 'diff,push,promote,pull').split(',');
const BUILDS = Object.fromEntries(process.argv.flatMap((a, i) => (a === '--build' ? [process.argv[i + 1].split('=')] : [])).map(([n, d]) => [n, resolve(d)]));
if (Object.keys(BUILDS).length < 2) throw new Error('give two builds or more: --build with=. --build without=/path');
const NAMES = Object.keys(BUILDS);
const REF = NAMES[0];
const WAIT4 =
  'import os,sys,time\nt=time.monotonic()\np=os.fork()\nif p==0: os.execvp(sys.argv[2],sys.argv[2:])\n_,s,r=os.wait4(p,0)\nopen(sys.argv[1],"w").write(f"{time.monotonic()-t} {r.ru_utime} {r.ru_stime}")\nsys.exit(os.waitstatus_to_exitcode(s))';
const keyOf = (org) => `key_bench_${org}`;
const base = mkdtempSync(join(tmpdir(), 'vap-fp-'));
const clean = () => {
  const env = { ...process.env };
  for (const k of ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'NODE_COMPILE_CACHE', 'NODE_V8_COVERAGE', 'NODE_DEBUG', 'VAP_PROFILE', 'CI', 'VAP_API_KEY'])
    delete env[k];
  return { ...env, NO_COLOR: '1' };
};

function run(variant, args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    const tf = join(base, `time-${Math.random()}`);
    const t0 = performance.now();
    const child = spawn('python3', ['-c', WAIT4, tf, process.execPath, join(BUILDS[variant], 'bin/vap.js'), ...args], {
      cwd,
      env: { ...clean(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => {
      const wall = performance.now() - t0;
      const [, u, s] = readFileSync(tf, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      rmSync(tf);
      if (code !== 0) return reject(new Error(`${variant} ${args.join(' ')} exited ${code}: ${err.slice(0, 400)} … ${err.slice(-300)}`));
      resolve({ wall, cpu: (u + s) * 1000, out });
    });
  });
}

function startEmulator(orgs) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        join(BUILDS[REF], 'bin/vap.js'),
        'emulator',
        'start',
        '--port',
        '0',
        '--json',
        ...orgs.flatMap((o) => ['--org', `${o}:${keyOf(o)}`]),
        '--time-scale',
        '5000',
      ],
      { env: clean(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, ...JSON.parse(line) }));
    child.once('exit', (c) => reject(new Error(`emulator exited ${c}`)));
  });
}
async function api(url, key, method, path, body) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
  return (await res.json()).data;
}
async function seed(url, org, n) {
  const key = keyOf(org);
  const tools = (await (await fetch(`${url}/_emulator/tools?org=${org}`)).json()).orgs[0].tools;
  const one = async (i) => {
    const a = await api(url, key, 'POST', '/api/v1/agents', {
      name: `Bench agent ${String(i).padStart(4, '0')}`,
      instructions: `You are agent ${i}.\nGreet callers.\nAlways ask for their name.`,
      engine: 'realtime',
    });
    await api(url, key, 'PUT', `/api/v1/agents/${a.id}/tools`, { toolIds: [tools[i % tools.length].id] });
    const suite = await api(url, key, 'POST', `/api/v1/agents/${a.id}/evals`, { name: 'Smoke', iterationsPerScenario: 1 });
    for (const k of [1, 2])
      await api(url, key, 'POST', `/api/v1/agents/${a.id}/evals/${suite.id}/scenarios`, {
        name: `Scenario ${k}`,
        persona: `Caller ${k}, polite`,
        goal: `Goal ${k}`,
        category: 'happy_path',
      });
    await api(url, key, 'PATCH', `/api/v1/agents/${a.id}/evals/${suite.id}`, { status: 'ready' });
  };
  for (let i = 0; i < n; i += 16) await Promise.all(Array.from({ length: Math.min(16, n - i) }, (_, k) => one(i + k)));
}
function edit(dir, n, v) {
  for (const slug of readdirSync(join(dir, 'agents')).sort().slice(0, n)) {
    const md = join(dir, 'agents', slug, 'agent.md');
    writeFileSync(md, readFileSync(md, 'utf8').replace(/\nGreet callers\.[^\n]*\n/, `\nGreet callers. (variant ${v})\n`));
  }
}
function tree(dir, rel = '') {
  const out = {};
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, tree(dir, p));
    else out[p] = readFileSync(join(dir, p), 'utf8');
  }
  return out;
}
const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * p;
  return s[Math.floor(i)] + (s[Math.ceil(i)] - s[Math.floor(i)]) * (i - Math.floor(i));
};
function report(name, results, ref = REF) {
  const lines = [
    `\n${name} (${RUNS} runs each, alternating; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  ];
  const m = (v, k) =>
    q(
      results[v].map((r) => r[k]),
      0.5,
    );
  for (const v of Object.keys(results)) {
    const w = results[v].map((r) => r.wall);
    const c = results[v].map((r) => r.cpu);
    const pw = results[v].map((r, i) => r.wall - results[ref][i].wall);
    const pc = results[v].map((r, i) => r.cpu - results[ref][i].cpu);
    const paired =
      v === ref
        ? ''
        : `\n           paired (same round) differences: wall median ${q(pw, 0.5).toFixed(0)} ms (IQR ${q(pw, 0.25).toFixed(0)}–${q(pw, 0.75).toFixed(0)}) = ${((q(pw, 0.5) / m(ref, 'wall')) * 100).toFixed(1)}% of the command with it; cpu median ${q(pc, 0.5).toFixed(0)} ms (IQR ${q(pc, 0.25).toFixed(0)}–${q(pc, 0.75).toFixed(0)}) = ${((q(pc, 0.5) / m(ref, 'cpu')) * 100).toFixed(1)}%`;
    const gain =
      v === ref
        ? ''
        : `  without it: +${(m(v, 'wall') - m(ref, 'wall')).toFixed(0)} ms wall = ${(((m(v, 'wall') - m(ref, 'wall')) / m(v, 'wall')) * 100).toFixed(1)}% of the command without it (${(((m(v, 'wall') - m(ref, 'wall')) / m(ref, 'wall')) * 100).toFixed(1)}% of it with), cpu +${(m(v, 'cpu') - m(ref, 'cpu')).toFixed(0)} ms (${(((m(v, 'cpu') - m(ref, 'cpu')) / m(v, 'cpu')) * 100).toFixed(1)}%)`;
    lines.push(
      `  ${v.padEnd(8)} wall median ${m(v, 'wall').toFixed(0)} ms (IQR ${q(w, 0.25).toFixed(0)}–${q(w, 0.75).toFixed(0)}, min–max ${Math.min(...w).toFixed(0)}–${Math.max(...w).toFixed(0)}); cpu median ${m(v, 'cpu').toFixed(0)} ms (IQR ${q(c, 0.25).toFixed(0)}–${q(c, 0.75).toFixed(0)})${gain}${paired}`,
    );
  }
  console.log(lines.join('\n'));
}

const emu = await startEmulator(['staging', 'thousand', 'prod']);
const url = emu.url;
const envFor = (org, dir, v) => ({
  VAP_BASE_URL: url,
  VAP_API_KEY: keyOf(org),
  VAP_STATE_DIR: join(base, `state-${v}`),
  VAP_CONFIG_DIR: join(base, 'config'),
  HOME: dir,
});
try {
  const t = performance.now();
  await Promise.all([ONLY.some((o) => o !== 'pull') ? seed(url, 'staging', BIG) : null, ONLY.includes('pull') ? seed(url, 'thousand', PULLN) : null]);
  console.log(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s; ${base}`);

  if (ONLY.includes('diff') || ONLY.includes('push')) {
    const S = join(base, 'staging');
    mkdirSync(S);
    await run(REF, ['pull', '--all', '--profile', 'staging'], { cwd: S, env: envFor('staging', S, REF) });
    const variants = NAMES;
    // warm-up: each build's compile cache
    const outs = {};
    for (const v of variants) outs[v] = (await run(v, ['diff', '--json', '--profile', 'staging'], { cwd: S, env: envFor('staging', S, v) })).out;
    for (const v of variants) if (outs[v] !== outs[REF]) console.log(`!! diff output of ${v} differs from the first build`);
    if (ONLY.includes('diff')) {
      const res = Object.fromEntries(variants.map((v) => [v, []]));
      for (let r = 0; r < RUNS; r++) {
        const order = variants.map((_, i) => variants[(i + r) % variants.length]);
        for (const v of order) res[v].push(await run(v, ['diff', '--json', '--profile', 'staging'], { cwd: S, env: envFor('staging', S, v) }));
      }
      report(`diff, ${BIG} agents with a suite each, nothing changed`, res);
    }
    if (ONLY.includes('push')) {
      const res = Object.fromEntries(variants.map((v) => [v, []]));
      let k = 0;
      for (let r = 0; r < RUNS; r++) {
        const order = variants.map((_, i) => variants[(i + r) % variants.length]);
        for (const v of order) {
          edit(S, 100, `p${k++}`);
          res[v].push(await run(v, ['push', '--profile', 'staging', '--yes'], { cwd: S, env: envFor('staging', S, v) }));
        }
      }
      report(`push, ${Math.min(100, BIG)} edited agents among ${BIG}`, res);
    }
  }
  if (ONLY.includes('pull')) {
    const variants = NAMES;
    const res = Object.fromEntries(variants.map((v) => [v, []]));
    const trees = {};
    let k = 0;
    for (let r = -1; r < RUNS; r++) {
      const order = variants.map((_, i) => variants[(i + Math.max(r, 0)) % variants.length]);
      for (const v of order) {
        const dir = join(base, `pull-${k++}`);
        mkdirSync(dir);
        const x = await run(v, ['pull', '--all', '--profile', 'thousand'], { cwd: dir, env: envFor('thousand', dir, v) });
        if (r < 0) {
          const tr = tree(dir);
          delete tr['.vap/state.thousand.json'];
          trees[v] = JSON.stringify(tr);
          // the state differs only by its random salt: compared without its origin
          const st = JSON.parse(readFileSync(join(dir, '.vap/state.thousand.json'), 'utf8'));
          delete st.origin;
          trees[`${v}-state`] = JSON.stringify(st);
        } else res[v].push(x);
        rmSync(dir, { recursive: true, force: true });
      }
    }
    for (const v of variants)
      if (trees[v] !== trees[REF] || trees[`${v}-state`] !== trees[`${REF}-state`]) console.log(`!! pull of ${v} wrote other files than the first build`);
    report(`pull --all, ${PULLN} agents (a suite each) into an empty folder`, res);
  }
  if (ONLY.includes('promote')) {
    const S = join(base, 'promote');
    mkdirSync(S);
    const toolsOf = async (org) =>
      Object.fromEntries((await (await fetch(`${url}/_emulator/tools?org=${org}`)).json()).orgs[0].tools.map((t) => [t.name, t.id]));
    const lines = ['version: 1', 'profiles:'];
    for (const p of ['staging', 'prod']) {
      lines.push(`  ${p}:`, '    tools:');
      for (const [name, id] of Object.entries(await toolsOf(p))) lines.push(`      ${name}: ${id}`);
    }
    writeFileSync(join(S, 'vap.yaml'), `${lines.join('\n')}\n`);
    await run(REF, ['pull', '--all', '--profile', 'staging'], { cwd: S, env: envFor('staging', S, REF) });
    await run(REF, ['push', '--profile', 'prod', '--yes'], { cwd: S, env: envFor('prod', S, REF) });
    const env2 = { VAP_API_KEY_STAGING: keyOf('staging'), VAP_API_KEY_PROD: keyOf('prod') };
    const variants = NAMES;
    const res = Object.fromEntries(variants.map((v) => [v, []]));
    let k = 0;
    for (let r = -1; r < RUNS; r++) {
      const order = variants.map((_, i) => variants[(i + Math.max(r, 0)) % variants.length]);
      for (const v of order) {
        edit(S, 100, `q${k++}`);
        for (let attempt = 0; ; attempt++) {
          try {
            await run(REF, ['push', '--profile', 'staging', '--yes', '--eval', '--allow-failed-iterations', '100', '--poll'], {
              cwd: S,
              env: envFor('staging', S, REF),
            });
            break;
          } catch (e) {
            console.log(`retry: ${String(e.message).slice(0, 200)}`);
            if (attempt > 8) throw e;
          }
        }
        const x = await run(v, ['promote', '--from', 'staging', '--to', 'prod', '--yes', '--allow-failed-iterations', '100'], {
          cwd: S,
          env: { ...envFor('staging', S, v), ...env2 },
        });
        if (r >= 0) res[v].push(x);
        await run(REF, ['pull', '--profile', 'prod'], { cwd: S, env: envFor('prod', S, REF) });
      }
    }
    report(`promote, 100 agents that passed in staging, to a prod of ${BIG}`, res);
  }
} finally {
  emu.child.kill('SIGTERM');
  rmSync(base, { recursive: true, force: true });
}
