import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// The emulator's campaigns (document 2) over real HTTP: creation rules, the state
// machine and its refusals, campaign contacts, the queue's order, inbound and API
// campaigns, tenant isolation. timeScale 1000: a simulated minute takes 60 ms.

let emu: TestEmulator;
let agentId: string;
let listId: string;
let contactIds: string[];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

async function setupOrg(e: TestEmulator, n: number, key?: string): Promise<{ agentId: string; listId: string; contactIds: string[] }> {
  const a = await e.api(
    'POST',
    '/api/v1/agents',
    {
      name: 'Ava',
      engine: 'realtime',
      instructions: 'You are Ava from Bright Dental. You call patients to remind them about their upcoming appointments. Always confirm the date.',
    },
    key,
  );
  expect(a.status).toBe(201);
  const l = await e.api(
    'POST',
    '/api/v1/contact-lists',
    {
      name: 'Patients',
      schema: {
        fields: [
          { name: 'name', type: 'string', required: true },
          { name: 'phone', type: 'phone', required: true },
        ],
      },
    },
    key,
  );
  expect(l.status).toBe(201);
  const contacts = Array.from({ length: n }, (_, i) => ({
    name: `Patient ${String.fromCharCode(65 + (i % 26))}${i}`,
    phone: `+1415555${String(100 + i).padStart(4, '0')}`,
  }));
  const job = await e.api('POST', `/api/v1/contact-lists/${l.body.data.id}/contacts`, { contacts }, key);
  expect(job.status).toBe(202);
  await until('the import', async () => (await e.api('GET', `/api/v1/import-jobs/${job.body.jobId}`, undefined, key)).body.status === 'completed');
  const cs = await e.api('GET', `/api/v1/contact-lists/${l.body.data.id}/contacts?limit=100`, undefined, key);
  return { agentId: a.body.data.id, listId: l.body.data.id, contactIds: cs.body.data.map((c: { id: string }) => c.id) };
}

async function campaign(body: Record<string, unknown> = {}, key?: string) {
  const r = await emu.api('POST', '/api/v1/campaigns', { name: 'Reminders', direction: 'outbound', contactListId: listId, agentId, ...body }, key);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { id: string; status: string; [k: string]: unknown };
}

beforeAll(async () => {
  emu = await startTestEmulator();
  ({ agentId, listId, contactIds } = await setupOrg(emu, 12));
});
afterAll(async () => {
  await emu.close();
});

describe('create, get, list, update', () => {
  it('creates a draft outbound campaign with the full record', async () => {
    const c = await campaign({ description: 'Monthly reminders', agent: { type: 'voice' }, workspaceId: 'ws_1' });
    expect(c.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(c).toMatchObject({
      name: 'Reminders',
      description: 'Monthly reminders',
      status: 'draft',
      direction: 'outbound',
      type: 'standard',
      contactListId: listId,
      contactListName: 'Patients',
      totalContacts: 0,
      pendingContacts: 0,
      agentId,
      agent: { type: 'voice' },
      workspaceId: 'ws_1',
      startedAt: null,
      completedAt: null,
    });
    const got = await emu.api('GET', `/api/v1/campaigns/${c.id}`);
    expect(got.body.data).toEqual(c);
  });

  it('refuses bad bodies naming the field, unknown agents, lists and numbers', async () => {
    const post = (b: Record<string, unknown>) => emu.api('POST', '/api/v1/campaigns', b);
    let r = await post({ direction: 'outbound', contactListId: listId, agentId });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^name/);
    r = await post({ name: 'x', direction: 'sideways', contactListId: listId, agentId });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^direction/);
    r = await post({ name: 'x', direction: 'outbound', agentId });
    expect(r.body.error.message).toMatch(/^contactListId/);
    r = await post({ name: 'x', direction: 'outbound', contactListId: listId, agentId: 'ag_nope' });
    expect([r.status, r.body.error.code]).toEqual([422, 'agent_not_found']);
    r = await post({ name: 'x', direction: 'outbound', contactListId: 'cl_nope', agentId });
    expect([r.status, r.body.error.code]).toEqual([422, 'contact_list_not_found']);
    r = await post({ name: 'x', type: 'api', contactListId: listId, agentId });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^contactListId/);
    r = await post({ name: 'x', direction: 'inbound', agentId });
    expect(r.body.error.message).toMatch(/^provisionedPhoneNumberId/);
    r = await post({ name: 'x', direction: 'inbound', agentId, provisionedPhoneNumberId: 'pn_nope' });
    expect([r.status, r.body.error.code]).toEqual([422, 'phone_number_not_found']);
    r = await post({ name: 'x', direction: 'outbound', contactListId: listId, agentId, color: 'red' });
    expect(r.body.error.message).toMatch(/^color/);
  });

  it('lists newest first with status, direction and search filters and pagination', async () => {
    await campaign({ name: 'Alpha winter drive' });
    await campaign({ name: 'Beta summer drive' });
    const all = await emu.api('GET', '/api/v1/campaigns?pageSize=2');
    expect(all.status).toBe(200);
    expect(all.body.data.campaigns.map((c: { name: string }) => c.name)).toEqual(['Beta summer drive', 'Alpha winter drive']);
    expect(all.body.data.pagination).toMatchObject({ page: 1, pageSize: 2 });
    expect(all.body.data.pagination.total).toBeGreaterThanOrEqual(3);
    const s = await emu.api('GET', '/api/v1/campaigns?search=WINTER');
    expect(s.body.data.campaigns.map((c: { name: string }) => c.name)).toEqual(['Alpha winter drive']);
    const active = await emu.api('GET', '/api/v1/campaigns?status=active&direction=inbound');
    expect(active.body.data.campaigns).toEqual([]);
    expect((await emu.api('GET', '/api/v1/campaigns?status=running')).status).toBe(400);
  });

  it('updates only the settable fields', async () => {
    const c = await campaign();
    const r = await emu.api('PATCH', `/api/v1/campaigns/${c.id}`, { name: 'Renamed', description: 'New' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: 'Renamed', description: 'New' });
    const bad = await emu.api('PATCH', `/api/v1/campaigns/${c.id}`, { status: 'active' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^status: .*start/);
    expect((await emu.api('PATCH', `/api/v1/campaigns/${c.id}`, {})).status).toBe(400);
  });
});

describe('state machine', () => {
  it('start, pause, start again (a run each time), with refusals and campaign.status.updated events', async () => {
    const c = await campaign();
    const start = await emu.api('POST', `/api/v1/campaigns/${c.id}/start`);
    expect(start.status).toBe(200);
    expect(start.body.data.status).toBe('active');
    expect(start.body.data.startedAt).not.toBeNull();
    const again = await emu.api('POST', `/api/v1/campaigns/${c.id}/start`);
    expect([again.status, again.body.error.code]).toEqual([409, 'invalid_transition']);
    expect(again.body.error.message).toMatch(/is active/);
    const del = await emu.api('DELETE', `/api/v1/campaigns/${c.id}`);
    expect([del.status, del.body.error.code]).toEqual([409, 'campaign_active']);
    expect(del.body.error.message).toMatch(/pause it first/);
    const pause = await emu.api('POST', `/api/v1/campaigns/${c.id}/pause`);
    expect(pause.body.data.status).toBe('paused');
    const pause2 = await emu.api('POST', `/api/v1/campaigns/${c.id}/pause`);
    expect([pause2.status, pause2.body.error.code]).toEqual([409, 'invalid_transition']);
    expect((await emu.api('POST', `/api/v1/campaigns/${c.id}/start`)).body.data.status).toBe('active');
    await emu.api('POST', `/api/v1/campaigns/${c.id}/pause`);
    const events = (
      await emu.control<{ events: Array<{ type: string; data: Record<string, unknown> }> }>('GET', '/events?org=acme&type=campaign.status.updated')
    ).events.filter((e) => e.data.campaignId === c.id);
    expect(events.map((e) => `${e.data.previousStatus}→${e.data.status}`)).toEqual(['draft→active', 'active→paused', 'paused→active', 'active→paused']);
    const d = await emu.api('DELETE', `/api/v1/campaigns/${c.id}`);
    expect(d.body).toEqual({ data: { id: c.id, deleted: true } });
    expect((await emu.api('GET', `/api/v1/campaigns/${c.id}`)).status).toBe(404);
  });

  it('an outbound campaign completes when every contact was called; completed is final', async () => {
    const c = await campaign({ name: 'Complete me' });
    expect((await emu.api('POST', `/api/v1/campaigns/${c.id}/contacts`, { contactIds: contactIds.slice(0, 4) })).body.data).toEqual({ added: 4, skipped: 0 });
    const q = await emu.api('POST', `/api/v1/campaigns/${c.id}/calls`, { queueAllPending: true });
    expect(q.status).toBe(201);
    expect(q.body.data.queued).toBe(4);
    await emu.api('POST', `/api/v1/campaigns/${c.id}/start`);
    const done = await until('completion', async () => {
      const g = await emu.api('GET', `/api/v1/campaigns/${c.id}`);
      return g.body.data.status === 'completed' && g.body.data;
    });
    expect(done.completedAt).not.toBeNull();
    const calls = await emu.api('GET', `/api/v1/campaigns/${c.id}/calls`);
    expect(calls.body.data.summary).toMatchObject({ total: 4, active: 0, queued: 0 });
    expect(calls.body.data.summary.completed + calls.body.data.summary.failed).toBe(4);
    const contacts = await emu.api('GET', `/api/v1/campaigns/${c.id}/contacts`);
    for (const ct of contacts.body.data.contacts) expect(['called', 'failed']).toContain(ct.status);
    const start = await emu.api('POST', `/api/v1/campaigns/${c.id}/start`);
    expect([start.status, start.body.error.code]).toEqual([409, 'invalid_transition']);
    expect(start.body.error.message).toMatch(/completed/);
    expect((await emu.api('POST', `/api/v1/campaigns/${c.id}/calls`, { queueAllPending: true })).status).toBe(409);
    expect((await emu.api('PATCH', `/api/v1/campaigns/${c.id}`, { name: 'x' })).status).toBe(409);
    // completed campaigns can be deleted; their calls stay listed
    expect((await emu.api('DELETE', `/api/v1/campaigns/${c.id}`)).status).toBe(200);
    const after = await emu.api('GET', `/api/v1/calls?campaignId=${c.id}`);
    expect(after.body.data.pagination.total).toBe(4);
  });
});

describe('campaign contacts', () => {
  it('adds list contacts (skipping duplicates), refuses others whole, lists and removes', async () => {
    const c = await campaign();
    const bad = await emu.api('POST', `/api/v1/campaigns/${c.id}/contacts`, { contactIds: [contactIds[0], 'ct_stranger'] });
    expect([bad.status, bad.body.error.code]).toEqual([422, 'contacts_not_in_list']);
    expect(bad.body.error.message).toContain('ct_stranger');
    expect((await emu.api('GET', `/api/v1/campaigns/${c.id}`)).body.data.totalContacts).toBe(0);
    expect((await emu.api('POST', `/api/v1/campaigns/${c.id}/contacts`, { contactIds: contactIds.slice(0, 3) })).body.data).toEqual({ added: 3, skipped: 0 });
    expect((await emu.api('POST', `/api/v1/campaigns/${c.id}/contacts`, { contactIds: contactIds.slice(2, 5) })).body.data).toEqual({ added: 2, skipped: 1 });
    const list = await emu.api('GET', `/api/v1/campaigns/${c.id}/contacts?pageSize=2&page=2`);
    expect(list.body.data.pagination).toEqual({ page: 2, pageSize: 2, total: 5, totalPages: 3 });
    expect(list.body.data.contacts[0]).toMatchObject({ contactId: contactIds[2], status: 'pending', lastCallId: null });
    expect(list.body.data.contacts[0].name).toMatch(/^Patient /);
    expect(list.body.data.contacts[0].phoneNumber).toMatch(/^\+1415555/);
    const view = (await emu.api('GET', `/api/v1/campaigns/${c.id}`)).body.data;
    expect([view.totalContacts, view.pendingContacts]).toEqual([5, 5]);
    // a queued call of a removed contact is cancelled
    const q = await emu.api('POST', `/api/v1/campaigns/${c.id}/calls`, { contactIds: [contactIds[1]] });
    const callId = q.body.data.calls[0].id;
    expect((await emu.api('DELETE', `/api/v1/campaigns/${c.id}/contacts/${contactIds[1]}`)).body).toEqual({ data: { removed: true } });
    expect((await emu.api('GET', `/api/v1/calls/${callId}`)).body.data.status).toBe('cancelled');
    expect((await emu.api('DELETE', `/api/v1/campaigns/${c.id}/contacts/${contactIds[1]}`)).status).toBe(404);
  });
});

describe('queue', () => {
  it('refuses mixed or missing selectors, bad priorities, past schedules and strangers', async () => {
    const c = await campaign();
    await emu.api('POST', `/api/v1/campaigns/${c.id}/contacts`, { contactIds: contactIds.slice(0, 2) });
    const post = (b: unknown) => emu.api('POST', `/api/v1/campaigns/${c.id}/calls`, b);
    expect((await post({})).status).toBe(400);
    expect((await post({ contactIds: [contactIds[0]], queueAllPending: true })).status).toBe(400);
    const p = await post({ contactIds: [contactIds[0]], priority: 11 });
    expect(p.status).toBe(400);
    expect(p.body.error.message).toMatch(/^priority/);
    const past = await post({ contactIds: [contactIds[0]], scheduledFor: '2001-01-01T00:00:00Z' });
    expect(past.body.error.message).toMatch(/^scheduledFor/);
    const stranger = await post({ contactIds: [contactIds[5]] });
    expect([stranger.status, stranger.body.error.code]).toEqual([422, 'contacts_not_in_campaign']);
    const ok = await post({ contactIds: [contactIds[0]], priority: 7 });
    expect(ok.status).toBe(201);
    expect(ok.body.data.calls[0]).toMatchObject({ status: 'queued', priority: 7, contactId: contactIds[0], campaignId: c.id, direction: 'outbound' });
    // already queued: skipped
    expect((await post({ contactIds: [contactIds[0]] })).body.data.queued).toBe(0);
  });

  it('dials by priority, then age, and holds scheduled calls until their time', async () => {
    const c = await campaign({ name: 'Order' });
    const ids = contactIds.slice(0, 5);
    await emu.api('POST', `/api/v1/campaigns/${c.id}/contacts`, { contactIds: ids });
    const now = Date.parse((await emu.control<{ now: string }>('GET', '/health')).now);
    const q = async (contactId: string, extra: Record<string, unknown>) =>
      (await emu.api('POST', `/api/v1/campaigns/${c.id}/calls`, { contactIds: [contactId], ...extra })).body.data.calls[0].id as string;
    const low1 = await q(ids[0]!, { priority: 1 });
    const low2 = await q(ids[1]!, { priority: 1 });
    const top = await q(ids[2]!, { priority: 10 });
    const mid = await q(ids[3]!, { priority: 5 });
    const scheduledFor = new Date(now + 30 * 60_000).toISOString();
    const later = await q(ids[4]!, { priority: 10, scheduledFor });
    await emu.api('POST', `/api/v1/campaigns/${c.id}/start`);
    await until('every call dialled', async () => (await emu.api('GET', `/api/v1/campaigns/${c.id}/calls?status=queued`)).body.data.pagination.total === 0);
    const events = (
      await emu.control<{ events: Array<{ type: string; callId: string; data: Record<string, unknown> }> }>('GET', '/events?org=acme&type=call.status.updated')
    ).events;
    const order = events.filter((e) => e.data.status === 'initiated' && [low1, low2, top, mid, later].includes(e.callId)).map((e) => e.callId);
    expect(order).toEqual([top, mid, low1, low2, later]);
    const l = (await emu.api('GET', `/api/v1/calls/${later}`)).body.data;
    expect(Date.parse(l.startedAt)).toBeGreaterThanOrEqual(Date.parse(scheduledFor));
  });

  it('dials calls of one priority queued in the same request in the order they were queued', async () => {
    const c = await campaign({ name: 'Same instant' });
    const ids = contactIds.slice(0, 5);
    await emu.api('POST', `/api/v1/campaigns/${c.id}/contacts`, { contactIds: ids });
    // One request: the calls are made in the same millisecond, so their age ties.
    const queued = (await emu.api('POST', `/api/v1/campaigns/${c.id}/calls`, { contactIds: ids, priority: 3 })).body.data.calls as Array<{
      id: string;
      contactId: string;
    }>;
    expect(queued.map((x) => x.contactId)).toEqual(ids);
    await emu.api('POST', `/api/v1/campaigns/${c.id}/start`);
    await until('every call dialled', async () => (await emu.api('GET', `/api/v1/campaigns/${c.id}/calls?status=queued`)).body.data.pagination.total === 0);
    const events = (
      await emu.control<{ events: Array<{ type: string; callId: string; data: Record<string, unknown> }> }>('GET', '/events?org=acme&type=call.status.updated')
    ).events;
    const mine = new Set(queued.map((x) => x.id));
    expect(events.filter((e) => e.data.status === 'initiated' && mine.has(e.callId)).map((e) => e.callId)).toEqual(queued.map((x) => x.id));
  });

  it('a draft campaign keeps its queued calls until started; at most 3 calls in flight', async () => {
    const c = await campaign({ name: 'Waits' });
    await emu.api('POST', `/api/v1/campaigns/${c.id}/contacts`, { contactIds });
    await emu.api('POST', `/api/v1/campaigns/${c.id}/calls`, { queueAllPending: true });
    await sleep(150);
    const before = await emu.api('GET', `/api/v1/campaigns/${c.id}/calls`);
    expect(before.body.data.summary).toMatchObject({ total: contactIds.length, queued: contactIds.length, active: 0 });
    await emu.api('POST', `/api/v1/campaigns/${c.id}/start`);
    let sawActive = false;
    await until('the queue drains', async () => {
      const s = (await emu.api('GET', `/api/v1/campaigns/${c.id}/calls?pageSize=1`)).body.data.summary;
      expect(s.active).toBeLessThanOrEqual(3);
      if (s.active > 0) sawActive = true;
      return s.queued === 0 && s.active === 0;
    });
    expect(sawActive).toBe(true);
  });
});

describe('inbound and API campaigns', () => {
  it('an inbound campaign on a seeded number receives calls while active', async () => {
    const numbers = await emu.control<{ orgs: Array<{ org: string; phoneNumbers: Array<{ id: string; phoneNumber: string; label: string }> }> }>(
      'GET',
      '/phone-numbers?org=acme',
    );
    expect(numbers.orgs[0]!.phoneNumbers).toHaveLength(3);
    const pn = numbers.orgs[0]!.phoneNumbers[0]!;
    expect(pn.id).toMatch(/^pn_/);
    expect(pn.phoneNumber).toMatch(/^\+1\d{10}$/);
    const c = await emu.api('POST', '/api/v1/campaigns', { name: 'Hotline', direction: 'inbound', agentId, provisionedPhoneNumberId: pn.id });
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({ direction: 'inbound', provisionedPhoneNumberId: pn.id, phoneNumber: pn.phoneNumber, contactListId: null });
    const id = c.body.data.id;
    expect((await emu.api('POST', `/api/v1/campaigns/${id}/calls`, { queueAllPending: true })).status).toBe(422);
    await emu.api('POST', `/api/v1/campaigns/${id}/start`);
    const calls = await until('two inbound calls', async () => {
      const r = await emu.api('GET', `/api/v1/campaigns/${id}/calls?direction=inbound`);
      return r.body.data.pagination.total >= 2 && r.body.data.calls;
    });
    expect(calls[0]).toMatchObject({ direction: 'inbound', campaignId: id });
    await emu.api('POST', `/api/v1/campaigns/${id}/pause`);
    // with a contact list, callers are matched against it
    const listed = await emu.api('POST', '/api/v1/campaigns', {
      name: 'Patients line',
      direction: 'inbound',
      agentId,
      provisionedPhoneNumberId: numbers.orgs[0]!.phoneNumbers[1]!.id,
      contactListId: listId,
    });
    expect(listed.body.data.contactListName).toBe('Patients');
    await emu.api('POST', `/api/v1/campaigns/${listed.body.data.id}/start`);
    const known = await until('a caller from the list', async () => {
      const r = await emu.api('GET', `/api/v1/campaigns/${listed.body.data.id}/calls?pageSize=100`);
      return r.body.data.calls.find((x: { contactId: string | null }) => x.contactId !== null);
    });
    expect(contactIds).toContain(known.contactId);
    expect(known.calleeName).toMatch(/^Patient /);
    await emu.api('POST', `/api/v1/campaigns/${listed.body.data.id}/pause`);
    // globex cannot use acme's numbers
    const b = await setupOrg(emu, 1, ORG_B.apiKey);
    const other = await emu.api(
      'POST',
      '/api/v1/campaigns',
      { name: 'x', direction: 'inbound', agentId: b.agentId, provisionedPhoneNumberId: pn.id },
      ORG_B.apiKey,
    );
    expect(other.status).toBe(422);
  });

  it('trigger places one call for an active API campaign at priority 10', async () => {
    const api = await emu.api('POST', '/api/v1/campaigns', { name: 'Hooks', type: 'api', agentId });
    expect(api.status).toBe(201);
    expect(api.body.data).toMatchObject({ type: 'api', direction: 'outbound', contactListId: null });
    const id = api.body.data.id;
    const draft = await emu.api('POST', `/api/v1/campaigns/${id}/trigger`, { phoneNumber: '+14155550999' });
    expect([draft.status, draft.body.error.code]).toEqual([409, 'campaign_not_active']);
    await emu.api('POST', `/api/v1/campaigns/${id}/start`);
    const bad = await emu.api('POST', `/api/v1/campaigns/${id}/trigger`, { phoneNumber: '555-0999' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^phoneNumber/);
    const t = await emu.api('POST', `/api/v1/campaigns/${id}/trigger`, { phoneNumber: '+14155550999', calleeName: 'Dana Scully' });
    expect(t.status).toBe(201);
    expect(t.body.data).toMatchObject({ status: 'queued', priority: 10, phoneNumber: '+14155550999', calleeName: 'Dana Scully', campaignId: id });
    await until('the triggered call ends', async () =>
      ['completed', 'failed'].includes((await emu.api('GET', `/api/v1/calls/${t.body.data.id}`)).body.data.status),
    );
    // API campaigns never complete by themselves, and take no contacts
    expect((await emu.api('GET', `/api/v1/campaigns/${id}`)).body.data.status).toBe('active');
    expect((await emu.api('POST', `/api/v1/campaigns/${id}/contacts`, { contactIds: [contactIds[0]] })).status).toBe(422);
    const std = await campaign();
    const notApi = await emu.api('POST', `/api/v1/campaigns/${std.id}/trigger`, { phoneNumber: '+14155550999' });
    expect([notApi.status, notApi.body.error.code]).toEqual([422, 'not_api_campaign']);
    await emu.api('POST', `/api/v1/campaigns/${id}/pause`);
  });
});

describe('tenant isolation', () => {
  it("another organization's campaign is not found on every path", async () => {
    const c = await campaign({ name: 'Private' });
    const k = ORG_B.apiKey;
    for (const [m, p, b] of [
      ['GET', `/api/v1/campaigns/${c.id}`],
      ['PATCH', `/api/v1/campaigns/${c.id}`, { name: 'mine' }],
      ['DELETE', `/api/v1/campaigns/${c.id}`],
      ['POST', `/api/v1/campaigns/${c.id}/start`],
      ['POST', `/api/v1/campaigns/${c.id}/pause`],
      ['GET', `/api/v1/campaigns/${c.id}/contacts`],
      ['POST', `/api/v1/campaigns/${c.id}/contacts`, { contactIds: ['x'] }],
      ['DELETE', `/api/v1/campaigns/${c.id}/contacts/x`],
      ['GET', `/api/v1/campaigns/${c.id}/calls`],
      ['POST', `/api/v1/campaigns/${c.id}/calls`, { queueAllPending: true }],
      ['POST', `/api/v1/campaigns/${c.id}/trigger`, { phoneNumber: '+14155550100' }],
    ] as Array<[string, string, unknown?]>) {
      const r = await emu.api(m, p, b, k);
      expect(r.status, `${m} ${p}`).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    const list = await emu.api('GET', '/api/v1/campaigns?pageSize=100', undefined, k);
    expect(list.body.data.campaigns.some((x: { id: string }) => x.id === c.id)).toBe(false);
    expect((await emu.api('GET', `/api/v1/campaigns/${c.id}`)).body.data.name).toBe('Private');
    // x-api-key is the only accepted form
    const res = await fetch(`${emu.url}/api/v1/campaigns`, { headers: { authorization: `Bearer ${k}` } });
    expect(res.status).toBe(401);
  });
});
