// The baseline of the agents-as-code bench: a bare client that reads the same resources as
// `vap diff` with the same concurrency (8 requests in flight), and nothing else — no files,
// no YAML, no plan. It reads the ids from the state file, as vap does.
//
//   node test/bench/ascode-bare.mjs <base url> <api key> <state file>
import { readFile } from 'node:fs/promises';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';

const [base, key, statePath] = process.argv.slice(2);
const state = JSON.parse(await readFile(statePath, 'utf8'));
const dispatcher = new Agent({ connections: 8 });
const limit = pLimit(8);
let requests = 0;

const get = (path) =>
  limit(async () => {
    const res = await request(`${base}${path}`, { dispatcher, headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
    const body = await res.body.json();
    if (res.statusCode >= 400) throw new Error(`${path}: ${res.statusCode}`);
    requests++;
    return body.data;
  });

const voices = get('/api/v1/voices');
const suitesOf = new Map();
await Promise.all(
  Object.values(state.agents).map(async (a) => {
    const [, , evals] = await Promise.all([get(`/api/v1/agents/${a.id}`), get(`/api/v1/agents/${a.id}/tools`), get(`/api/v1/agents/${a.id}/evals`)]);
    suitesOf.set(a.id, evals.evals);
  }),
);
const agentIdOf = new Map(Object.entries(state.agents).map(([slug, a]) => [slug, a.id]));
await Promise.all(Object.entries(state.suites).map(([key, s]) => get(`/api/v1/agents/${agentIdOf.get(key.split('/')[0])}/evals/${s.id}/scenarios`)));
await voices;
await dispatcher.close();
process.stdout.write(`${requests}\n`);
