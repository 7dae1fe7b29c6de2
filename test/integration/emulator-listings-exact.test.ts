import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// The listings read pages and totals from indexes kept as the data changes: every filter's
// pagination.total and summary stay exact, and pages are the ones a full scan would give,
// while calls change status under them.

let emu: TestEmulator;
let agent: string;
let list: string;
let draft: string;
let seededCampaign: string;

async function must(method: string, path: string, body?: unknown): Promise<any> {
  const r = await emu.api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Every call, newest first, from the unfiltered listing. */
async function allCalls(): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const d = (await must('GET', `/api/v1/calls?pageSize=100&page=${page}`)).data;
    out.push(...d.calls);
    if (page >= d.pagination.totalPages) return out;
  }
}

function summaryOf(calls: any[]) {
  const n = (f: (c: any) => boolean) => calls.filter(f).length;
  return {
    total: calls.length,
    completed: n((c) => c.status === 'completed'),
    failed: n((c) => c.status === 'failed'),
    active: n((c) => ['initiated', 'ringing', 'in_progress'].includes(c.status)),
    queued: n((c) => c.status === 'queued'),
  };
}

beforeAll(async () => {
  emu = await startTestEmulator({ timeScale: 1000 });
  agent = (await must('POST', '/api/v1/agents', { name: 'Lister', instructions: 'Call people.', engine: 'realtime' })).data.id;
  list = (
    await must('POST', '/api/v1/contact-lists', {
      name: 'L',
      schema: {
        fields: [
          { name: 'name', type: 'string' },
          { name: 'phone', type: 'phone' },
        ],
      },
    })
  ).data.id;
  const contacts = Array.from({ length: 150 }, (_, i) => ({ name: `Person ${i % 2 ? 'Odd' : 'Even'} ${i}`, phone: `+1415555${String(1000 + i)}` }));
  const job = await must('POST', `/api/v1/contact-lists/${list}/contacts`, { contacts });
  for (;;) {
    if ((await must('GET', `/api/v1/import-jobs/${job.jobId}`)).status === 'completed') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  seededCampaign = (await emu.control<{ campaignId: string }>('POST', '/calls/seed', { count: 3000 })).campaignId;
  await emu.control('POST', '/calls/seed', { count: 500, analysed: false });
  draft = (await must('POST', '/api/v1/campaigns', { name: 'Draft', direction: 'outbound', contactListId: list, agentId: agent })).data.id;
  const ids = (await must('GET', `/api/v1/contact-lists/${list}/contacts?limit=100`)).data.map((c: any) => c.id);
  await must('POST', `/api/v1/campaigns/${draft}/contacts`, { contactIds: ids });
  await must('POST', `/api/v1/campaigns/${draft}/calls`, { queueAllPending: true });
});
afterAll(async () => {
  await emu.close();
});

const FILTERS: Array<[string, (c: any) => boolean]> = [
  ['', () => true],
  ['status=completed', (c) => c.status === 'completed'],
  ['status=failed', (c) => c.status === 'failed'],
  ['status=queued', (c) => c.status === 'queued'],
  ['status=cancelled', (c) => c.status === 'cancelled'],
  ['status=in-progress', (c) => ['initiated', 'ringing', 'in_progress'].includes(c.status)],
  ['direction=outbound', (c) => c.direction === 'outbound'],
  ['direction=inbound', (c) => c.direction === 'inbound'],
  ['direction=outbound&status=failed', (c) => c.direction === 'outbound' && c.status === 'failed'],
  ['minDuration=60&maxDuration=200', (c) => c.duration >= 60 && c.duration <= 200],
  ['search=odd', (c) => c.calleeName.toLowerCase().includes('odd')],
  ['search=555', (c) => c.phoneNumber.replace(/\D/g, '').includes('555') || c.calleeName.includes('555')],
];

async function checkFilters(calls: any[]): Promise<void> {
  const days = [...new Set(calls.map((c) => c.createdAt.slice(0, 10)))].sort();
  const ranged: Array<[string, (c: any) => boolean]> = [
    [`dateFrom=${days[3]}&dateTo=${days[9]}`, (c) => c.createdAt.slice(0, 10) >= days[3]! && c.createdAt.slice(0, 10) <= days[9]!],
    [`dateFrom=${days[5]}&status=completed`, (c) => c.createdAt.slice(0, 10) >= days[5]! && c.status === 'completed'],
    [`campaignId=${seededCampaign}&status=failed`, (c) => c.campaignId === seededCampaign && c.status === 'failed'],
    [`campaignId=${draft}`, (c) => c.campaignId === draft],
  ];
  for (const [q, f] of [...FILTERS, ...ranged]) {
    const want = calls.filter(f);
    const first = (await must('GET', `/api/v1/calls?${q}&pageSize=7&page=1`)).data;
    expect(first.pagination.total, q).toBe(want.length);
    expect(first.summary, q).toEqual(summaryOf(want));
    expect(
      first.calls.map((c: any) => c.id),
      q,
    ).toEqual(want.slice(0, 7).map((c) => c.id));
    // a page deep in the listing
    const page = Math.max(1, Math.ceil(want.length / 7 / 2));
    const mid = (await must('GET', `/api/v1/calls?${q}&pageSize=7&page=${page}`)).data;
    expect(
      mid.calls.map((c: any) => c.id),
      `${q} page ${page}`,
    ).toEqual(want.slice((page - 1) * 7, page * 7).map((c) => c.id));
  }
  const scoped = (await must('GET', `/api/v1/campaigns/${draft}/calls?status=queued&pageSize=100`)).data;
  expect(scoped.summary).toEqual(summaryOf(calls.filter((c) => c.campaignId === draft && c.status === 'queued')));
}

describe('the calls listing', () => {
  it('gives the totals, summary and pages of a full scan for every filter', async () => {
    await checkFilters(await allCalls());
  });

  it('stays exact as calls change status (cancelled, then dialled and ended)', async () => {
    const queued = (await must('GET', `/api/v1/campaigns/${draft}/calls?status=queued&pageSize=40`)).data.calls;
    for (const c of queued.slice(0, 40)) await must('POST', `/api/v1/calls/${c.id}/cancel`);
    await checkFilters(await allCalls());
    await must('POST', `/api/v1/campaigns/${draft}/start`);
    await new Promise((r) => setTimeout(r, 300));
    await must('POST', `/api/v1/campaigns/${draft}/pause`);
    // let the calls in flight end, then compare
    for (;;) {
      const s = (await must('GET', `/api/v1/campaigns/${draft}/calls?pageSize=1`)).data.summary;
      if (s.active === 0) break;
      await new Promise((r) => setTimeout(r, 30));
    }
    const calls = await allCalls();
    expect(summaryOf(calls).completed + summaryOf(calls).failed).toBeGreaterThan(3500);
    await checkFilters(calls);
  });
});

describe('the other listings', () => {
  it('campaigns: every combination of status, direction, workspace and search', async () => {
    const made: any[] = [];
    for (let i = 0; i < 12; i++) {
      const body: Record<string, unknown> = { name: `Camp ${i % 3 ? 'north' : 'south'} ${i}`, agentId: agent, workspaceId: i % 2 ? 'ws_a' : 'ws_b' };
      if (i % 4 === 0) Object.assign(body, { type: 'api' });
      else Object.assign(body, { direction: 'outbound', contactListId: list });
      made.push((await must('POST', '/api/v1/campaigns', body)).data);
      if (i % 3 === 0) await must('POST', `/api/v1/campaigns/${made[i].id}/start`);
    }
    const all: any[] = [];
    for (let page = 1; ; page++) {
      const d = (await must('GET', `/api/v1/campaigns?pageSize=100&page=${page}`)).data;
      all.push(...d.campaigns);
      if (page >= d.pagination.totalPages) break;
    }
    for (const q of [
      'status=active',
      'status=draft&direction=outbound',
      'workspaceId=ws_a',
      'status=active&workspaceId=ws_b',
      'search=north',
      'search=south&status=draft',
      'direction=outbound&workspaceId=ws_a&status=draft',
    ]) {
      const p = new URLSearchParams(q);
      const want = all.filter(
        (c) =>
          (!p.get('status') || c.status === p.get('status')) &&
          (!p.get('direction') || c.direction === p.get('direction')) &&
          (!p.get('workspaceId') || c.workspaceId === p.get('workspaceId')) &&
          (!p.get('search') || c.name.toLowerCase().includes(p.get('search')!)),
      );
      const got = (await must('GET', `/api/v1/campaigns?${q}&pageSize=3&page=2`)).data;
      expect(got.pagination.total, q).toBe(want.length);
      expect(
        got.campaigns.map((c: any) => c.id),
        q,
      ).toEqual(want.slice(3, 6).map((c) => c.id));
    }
    // a status change moves the campaign between the filters' totals
    const before = (await must('GET', '/api/v1/campaigns?status=active')).data.pagination.total;
    await must('POST', `/api/v1/campaigns/${made[0].id}/pause`);
    expect((await must('GET', '/api/v1/campaigns?status=active')).data.pagination.total).toBe(before - 1);
    // the 40 contacts whose queued calls were cancelled are pending again
    expect((await must('GET', `/api/v1/campaigns/${draft}`)).data.pendingContacts).toBe(40);
  });

  it('contacts: a search pages through its matches with an exact total', async () => {
    const all = (await must('GET', `/api/v1/contact-lists/${list}/contacts?limit=100&page=1`)).data.concat(
      (await must('GET', `/api/v1/contact-lists/${list}/contacts?limit=100&page=2`)).data,
    );
    expect(all).toHaveLength(150);
    const odd = all.filter((c: any) => c.name.includes('Odd'));
    const p2 = await must('GET', `/api/v1/contact-lists/${list}/contacts?search=odd&limit=20&page=2`);
    expect(p2.pagination.total).toBe(odd.length);
    expect(p2.data.map((c: any) => c.id)).toEqual(odd.slice(20, 40).map((c: any) => c.id));
  });

  it('import jobs: status and list filters, newest first, exact totals', async () => {
    const other = (await must('POST', '/api/v1/contact-lists', { name: 'Other', schema: { fields: [{ name: 'name', type: 'string' }] } })).data.id;
    const jobs: string[] = [];
    for (let i = 0; i < 6; i++)
      jobs.push((await must('POST', `/api/v1/contact-lists/${i % 2 ? other : list}/contacts`, { contacts: [{ name: `n${i}` }] })).jobId);
    for (;;) {
      const active = (await must('GET', '/api/v1/import-jobs?status=pending,processing')).pagination.total;
      if (active === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const all = (await must('GET', '/api/v1/import-jobs?limit=100')).data;
    for (const q of [
      `contactListId=${other}`,
      'status=completed',
      'status=failed,completed',
      `contactListId=${other}&status=completed,cancelled`,
      `contactListId=${list}&status=completed`,
    ]) {
      const p = new URLSearchParams(q);
      const statuses = p.get('status')?.split(',');
      const want = all.filter(
        (j: any) => (!p.get('contactListId') || j.contactListId === p.get('contactListId')) && (!statuses || statuses.includes(j.status)),
      );
      const got = await must('GET', `/api/v1/import-jobs?${q}&limit=2&page=2`);
      expect(got.pagination.total, q).toBe(want.length);
      expect(
        got.data.map((j: any) => j.id),
        q,
      ).toEqual(want.slice(2, 4).map((j: any) => j.id));
    }
  });
});
