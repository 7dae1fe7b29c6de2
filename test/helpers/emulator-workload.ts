// A workload that touches every kind of record the emulator stores, over real HTTP: agents
// and their versions, contact lists, imports (valid and invalid rows), schema changes,
// campaigns (outbound, inbound, API) with their contacts and calls, webhook endpoints and
// deliveries, eval suites, scenarios and runs, eval imports and triage, published events and
// seeded history. The persistence tests run it, then check that what a restart reads back is
// what was acknowledged.

export type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;
export type Control = <T = any>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => Promise<T>;

/** What the workload was told (only what a 2xx answer acknowledged). */
export interface Acked {
  agents: Map<string, { version: number; instructions: Map<number, string> }>;
  deletedAgents: Set<string>;
  /** Import jobs with the exact counts they must end with, and their (own) list. */
  jobs: Map<string, { listId: string; total: number; valid: number }>;
  calls: Set<string>;
  endpoints: Set<string>;
}

export function emptyAcked(): Acked {
  return { agents: new Map(), deletedAgents: new Set(), jobs: new Map(), calls: new Set(), endpoints: new Set() };
}

const ok = (r: { status: number }) => r.status >= 200 && r.status < 300;

/** Rows for an import: `valid` good ones, then `invalid` with a bad phone. */
export function rows(tag: string, valid: number, invalid: number): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < valid; i++) out.push({ name: `${tag} ${i}`, phone: `+1415${String(5_000_000 + i).slice(-7)}` });
  for (let i = 0; i < invalid; i++) out.push({ name: `${tag} bad ${i}`, phone: `+1415555${i}abc` });
  return out;
}

/** One unit of acknowledged work of each kind a crash must not lose (the crash test runs several at once). */
export async function writeBurst(api: Api, acked: Acked, tag: string, webhookUrl: string | undefined): Promise<void> {
  const a = await api('POST', '/api/v1/agents', { name: `Agent ${tag}`, instructions: `Help callers (${tag}, v1).`, engine: 'realtime' });
  if (!ok(a)) return;
  const id = a.body.data.id as string;
  const rec = { version: 1, instructions: new Map([[1, `Help callers (${tag}, v1).`]]) };
  acked.agents.set(id, rec);
  for (let v = 2; v <= 3; v++) {
    const text = `Help callers (${tag}, v${v}).`;
    const p = await api('PATCH', `/api/v1/agents/${id}`, { instructions: text });
    if (!ok(p)) return;
    rec.version = p.body.data.currentVersion;
    rec.instructions.set(rec.version, text);
  }
  const list = await api('POST', '/api/v1/contact-lists', {
    name: `List ${tag}`,
    schema: {
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'phone', type: 'phone', required: true },
      ],
    },
  });
  if (!ok(list)) return;
  const listId = list.body.data.id as string;
  const valid = 700 + (tag.length % 7) * 100;
  const invalid = 37;
  const job = await api('POST', `/api/v1/contact-lists/${listId}/contacts`, { contacts: rows(tag, valid, invalid) });
  if (ok(job)) acked.jobs.set(job.body.jobId, { listId, total: valid + invalid, valid });
  const camp = await api('POST', '/api/v1/campaigns', { name: `API ${tag}`, type: 'api', agentId: id });
  if (!ok(camp)) return;
  const cid = camp.body.data.id as string;
  if (!ok(await api('POST', `/api/v1/campaigns/${cid}/start`))) return;
  for (let i = 0; i < 3; i++) {
    const t = await api('POST', `/api/v1/campaigns/${cid}/trigger`, { phoneNumber: `+1415555${String(1000 + i)}`, calleeName: `Callee ${tag} ${i}` });
    if (ok(t)) acked.calls.add(t.body.data.id);
  }
  if (webhookUrl) {
    const ep = await api('POST', '/api/v1/webhook-endpoints', { name: `Hook ${tag}`, url: webhookUrl, events: ['call.ended', 'call.started'] });
    if (ok(ep)) acked.endpoints.add(ep.body.data.id);
  }
  const gone = await api('POST', '/api/v1/agents', { name: `Temp ${tag}`, instructions: 'Short-lived.', engine: 'pipeline' });
  if (ok(gone) && ok(await api('DELETE', `/api/v1/agents/${gone.body.data.id}`))) acked.deletedAgents.add(gone.body.data.id);
}

/** Everything else the store holds, touched once each (the disk-equals-memory test). */
export async function everyKind(api: Api, control: Control, webhookUrl: string): Promise<void> {
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await api(method, path, body);
    if (!ok(r)) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const tools = (await control<{ orgs: Array<{ tools: Array<{ id: string }> }> }>('GET', '/tools?org=acme')).orgs[0]!.tools;
  const voices = (await must('GET', '/api/v1/voices')).data.voices as Array<{ id: string }>;
  const agent = (
    await must('POST', '/api/v1/agents', {
      name: 'Every kind',
      engine: 'realtime',
      instructions: 'You are Ava from Bright Dental. You call patients to remind them about their appointments. Always confirm the date of birth.',
    })
  ).data.id;
  await must('PUT', `/api/v1/agents/${agent}/tools`, { toolIds: [tools[0]!.id, tools[1]!.id] });
  await must('PUT', `/api/v1/agents/${agent}/voice`, { voiceId: voices[1]!.id });
  await must('PATCH', `/api/v1/agents/${agent}`, { description: 'described', tags: ['x'] });
  await must('POST', `/api/v1/agents/${agent}/rollback`, { version: 1, reason: 'back' });

  const list = (
    await must('POST', '/api/v1/contact-lists', {
      name: 'Patients',
      schema: {
        fields: [
          { name: 'name', type: 'string', required: true },
          { name: 'phone', type: 'phone', required: true },
          { name: 'age', type: 'string' },
        ],
      },
    })
  ).data.id;
  const job = await must('POST', `/api/v1/contact-lists/${list}/contacts`, { contacts: [...rows('p', 30, 5).map((r, i) => ({ ...r, age: String(20 + i) }))] });
  await waitFor(async () => (await must('GET', `/api/v1/import-jobs/${job.jobId}`)).status === 'completed');
  await must('PATCH', `/api/v1/contact-lists/${list}/schema`, { fields: [{ name: 'age', type: 'number' }] });
  const contactIds = ((await must('GET', `/api/v1/contact-lists/${list}/contacts?limit=100`)).data as Array<{ id: string }>).map((c) => c.id);

  await must('POST', '/api/v1/webhook-endpoints', {
    name: 'ok',
    url: webhookUrl,
    events: ['call.ended', 'call.started', 'campaign.status.updated', 'eval.run.completed'],
  });
  const failing = (await must('POST', '/api/v1/webhook-endpoints', { name: 'failing', url: `${webhookUrl}/fail`, events: ['call.ended'] })).data.id;
  await must('POST', `/api/v1/webhook-endpoints/${failing}/rotate-secret`);

  const out = (await must('POST', '/api/v1/campaigns', { name: 'Reminders', direction: 'outbound', contactListId: list, agentId: agent })).data.id;
  await must('POST', `/api/v1/campaigns/${out}/contacts`, { contactIds: contactIds.slice(0, 12) });
  await must('DELETE', `/api/v1/campaigns/${out}/contacts/${contactIds[11]}`);
  await must('POST', `/api/v1/campaigns/${out}/calls`, { queueAllPending: true, priority: 7 });
  await must('POST', `/api/v1/campaigns/${out}/start`);
  const numbers = await control<{ orgs: Array<{ phoneNumbers: Array<{ id: string }> }> }>('GET', '/phone-numbers?org=acme');
  const inbound = (
    await must('POST', '/api/v1/campaigns', {
      name: 'Hotline',
      direction: 'inbound',
      agentId: agent,
      provisionedPhoneNumberId: numbers.orgs[0]!.phoneNumbers[0]!.id,
      contactListId: list,
    })
  ).data.id;
  await must('POST', `/api/v1/campaigns/${inbound}/start`);
  const draft = (await must('POST', '/api/v1/campaigns', { name: 'Draft', direction: 'outbound', contactListId: list, agentId: agent })).data.id;
  await must('PATCH', `/api/v1/campaigns/${draft}`, { name: 'Draft renamed', workspaceId: 'ws_1' });
  await must('POST', `/api/v1/campaigns/${draft}/contacts`, { contactIds: contactIds.slice(0, 2) });
  const queued = (await must('POST', `/api/v1/campaigns/${draft}/calls`, { contactIds: contactIds.slice(0, 2) })).data.calls as Array<{ id: string }>;
  await must('POST', `/api/v1/calls/${queued[0]!.id}/cancel`);
  await control('POST', '/calls/seed', { org: 'acme', count: 500 });

  const suite = (await must('POST', `/api/v1/agents/${agent}/evals`, { name: 'Suite', iterationsPerScenario: 2 })).data.id;
  await must('POST', `/api/v1/agents/${agent}/evals/${suite}/scenarios`, {
    name: 'Book',
    persona: 'A polite patient',
    goal: 'Book a visit',
    category: 'happy_path',
  });
  await must('PATCH', `/api/v1/agents/${agent}/evals/${suite}`, { status: 'ready', noise: { type: 'cafe', level: 'low' } });
  await must('POST', `/api/v1/agents/${agent}/evals/${suite}/runs`);
  const sources = (await must('GET', `/api/v1/agents/${agent}/evals/${suite}/imports/sources`)).data;
  const src = sources.callCenters[0];
  const cands = (await must('GET', `/api/v1/agents/${agent}/evals/${suite}/imports/candidates?sourceType=call_center&sourceId=${src.id}&pageSize=5`)).data
    .calls as Array<{ id: string }>;
  const imp = (
    await must('POST', `/api/v1/agents/${agent}/evals/${suite}/imports`, { sourceType: 'call_center', sourceId: src.id, callIds: cands.map((c) => c.id) })
  ).data.id;
  await must('POST', `/api/v1/agents/${agent}/evals/${suite}/imports/${imp}/triage`, { batchSize: 3 });
  await must('POST', `/api/v1/agents/${agent}/evals/${suite}/imports/${imp}/scenarios`, { callIds: [cands[0]!.id] });
  await control('POST', '/events', { org: 'acme', type: 'call.ended', callId: 'c_x', data: { status: 'completed' }, count: 50 });
  await control('POST', '/clock/advance', { ms: 1000 });

  // Let the simulation run: calls ring, connect, end and are analysed; deliveries are attempted.
  await waitFor(async () => (await must('GET', `/api/v1/campaigns/${out}`)).data.status === 'completed', 30_000);
  await must('POST', `/api/v1/campaigns/${inbound}/pause`);
  await must('DELETE', `/api/v1/campaigns/${draft}`);
}

export async function waitFor(pred: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
