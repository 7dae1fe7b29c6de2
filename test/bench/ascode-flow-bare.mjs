// The baselines of the agents-as-code flow bench: a bare client that sends the requests
// `vap pull --all`, `vap diff`, `vap push` and `vap promote` send, with the same
// concurrency (each platform read 8 at a time, a promotion's source beside its target; the
// changes one resource at a time), and nothing else: no files, no YAML, no state, no plan.
//
//   node test/bench/ascode-flow-bare.mjs pull    <url> <key>
//   node test/bench/ascode-flow-bare.mjs read    <url> <key> <state.json>
//   node test/bench/ascode-flow-bare.mjs create  <url> <key> <creates.json>
//   node test/bench/ascode-flow-bare.mjs update  <url> <key> <state.json> <slugs.json>
//   node test/bench/ascode-flow-bare.mjs promote <url> <key> <state.json> <slugs.json> <source url> <source key> <source state.json>
//
// Prints the number of requests it sent.
import { readFileSync } from 'node:fs';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';

const [mode, base, key, ...rest] = process.argv.slice(2);
const dispatcher = new Agent({ connections: 8 });
const limit = pLimit(8);
/** A promotion's client of its source platform. */
let sourceDispatcher;
let requests = 0;

async function call(url, k, method, path, body, via = dispatcher) {
  const res = await request(`${url}${path}`, {
    method,
    dispatcher: via,
    headers: { authorization: `Bearer ${k}`, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.body.json();
  if (res.statusCode >= 400) throw new Error(`${method} ${path}: ${res.statusCode} ${JSON.stringify(json)}`);
  requests++;
  return json;
}
const get = (path) => limit(() => call(base, key, 'GET', path).then((j) => j.data));
const send = (method, path, body) => call(base, key, method, path, body).then((j) => j.data);

/** What `vap diff` reads of a state's agents: each agent, its tools and suites, the suites' scenarios, the voices. */
async function readState(state) {
  const voices = get('/api/v1/voices');
  await Promise.all(
    Object.values(state.agents).map((a) =>
      Promise.all([get(`/api/v1/agents/${a.id}`), get(`/api/v1/agents/${a.id}/tools`), get(`/api/v1/agents/${a.id}/evals`)]),
    ),
  );
  const agentIdOf = new Map(Object.entries(state.agents).map(([slug, a]) => [slug, a.id]));
  await Promise.all(Object.entries(state.suites).map(([k, s]) => get(`/api/v1/agents/${agentIdOf.get(k.split('/')[0])}/evals/${s.id}/scenarios`)));
  return (await voices).voices;
}

if (mode === 'pull') {
  const agents = [];
  for (let page = 1; ; page++) {
    const d = await get(`/api/v1/agents?page=${page}&pageSize=200`);
    agents.push(...d.agents);
    if (d.agents.length < 200) break;
  }
  await Promise.all(
    agents.map(async (a) => {
      const [, , e] = await Promise.all([get(`/api/v1/agents/${a.id}`), get(`/api/v1/agents/${a.id}/tools`), get(`/api/v1/agents/${a.id}/evals`)]);
      await Promise.all(e.evals.map((s) => get(`/api/v1/agents/${a.id}/evals/${s.id}/scenarios`)));
    }),
  );
  await get('/api/v1/webhook-endpoints');
} else if (mode === 'read') {
  await readState(JSON.parse(readFileSync(rest[0], 'utf8')));
} else if (mode === 'create') {
  // A first push: the voices, then each agent and its suites, one resource at a time (the
  // bodies were read from the project's files by the bench, untimed).
  const creates = JSON.parse(readFileSync(rest[0], 'utf8'));
  await get('/api/v1/voices');
  for (const c of creates) {
    const created = await send('POST', '/api/v1/agents', c.agent);
    await send('PUT', `/api/v1/agents/${created.id}/voice`, c.voice);
    if (c.toolIds.length) await send('PUT', `/api/v1/agents/${created.id}/tools`, { toolIds: c.toolIds });
    await Promise.all([get(`/api/v1/agents/${created.id}`), get(`/api/v1/agents/${created.id}/tools`)]);
    for (const suite of c.suites) {
      const s = await send('POST', `/api/v1/agents/${created.id}/evals`, suite.body);
      for (const sc of suite.scenarios) await send('POST', `/api/v1/agents/${created.id}/evals/${s.id}/scenarios`, sc);
      await send('PATCH', `/api/v1/agents/${created.id}/evals/${s.id}`, { status: 'ready' });
      await get(`/api/v1/agents/${created.id}/evals`);
      await get(`/api/v1/agents/${created.id}/evals/${s.id}/scenarios`);
    }
  }
} else if (mode === 'update' || mode === 'promote') {
  // The plan's reads, then each changed agent: a PATCH of its instructions and the read back.
  const state = JSON.parse(readFileSync(rest[0], 'utf8'));
  const slugs = JSON.parse(readFileSync(rest[1], 'utf8'));
  let sourceReads;
  if (mode === 'promote') {
    // What passed is checked on the source platform: each carried agent, its suites, each
    // gating suite's scenarios and runs, and each recorded run with its results, 8 at a time,
    // while the target is read (as vap reads them ahead of its check).
    const [srcUrl, srcKey, srcStatePath] = rest.slice(2);
    const src = JSON.parse(readFileSync(srcStatePath, 'utf8'));
    const srcLimit = pLimit(8);
    // A client of its own, as vap's for another profile (the bench's two organizations share one emulator).
    sourceDispatcher = new Agent({ connections: 8 });
    const srcGet = (path) => srcLimit(() => call(srcUrl, srcKey, 'GET', path, undefined, sourceDispatcher));
    sourceReads = Promise.all(
      slugs.map((s) => {
        const id = src.agents[s.slug].id;
        const suites = Object.entries(src.suites)
          .filter(([k]) => k.startsWith(`${s.slug}/`))
          .map(([, e]) => e.id);
        const runs = src.passed[s.slug]?.runs ?? [];
        return Promise.all([
          srcGet(`/api/v1/agents/${id}`),
          srcGet(`/api/v1/agents/${id}/tools`),
          srcGet(`/api/v1/agents/${id}/evals`),
          ...suites.flatMap((e) => [srcGet(`/api/v1/agents/${id}/evals/${e}/scenarios`), srcGet(`/api/v1/agents/${id}/evals/${e}/runs`)]),
          ...runs.flatMap((r) =>
            suites.length
              ? [srcGet(`/api/v1/agents/${id}/evals/${suites[0]}/runs/${r}`), srcGet(`/api/v1/agents/${id}/evals/${suites[0]}/runs/${r}/results`)]
              : [],
          ),
        ]);
      }),
    );
  }
  await Promise.all([readState(state), sourceReads]);
  for (const s of slugs) {
    const id = state.agents[s.slug].id;
    await send('PATCH', `/api/v1/agents/${id}`, { instructions: s.instructions, reason: 'bench' });
    await Promise.all([get(`/api/v1/agents/${id}`), get(`/api/v1/agents/${id}/tools`)]);
  }
}
await dispatcher.close();
await sourceDispatcher?.close();
process.stdout.write(`${requests}\n`);
