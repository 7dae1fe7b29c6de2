import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// Statements of the two documents that a client written from them alone checks, and that
// the emulator once got wrong: each test quotes the words it checks.

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ timeScale: 2000 });
});
afterAll(async () => {
  await emu.close();
});

async function must(method: string, path: string, body?: unknown): Promise<any> {
  const r = await emu.api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function until<T>(what: string, fn: () => Promise<T | false | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const TRAILING = [
  '+14155550101abc',
  '+1 415 555 0101 hello',
  '+14155550101 ext 5',
  '+14155550101;ext=5',
  '+1 415 555 0101 x5',
  'tel:+14155550101',
  '+14155550101 / +14155550102',
];

describe('document 2: "phone | phone number, validated as E.164"', () => {
  it('an import row whose phone carries anything besides the number is a row error, not a stored number', async () => {
    const list = (
      await must('POST', '/api/v1/contact-lists', {
        name: 'Phones',
        schema: {
          fields: [
            { name: 'name', type: 'string' },
            { name: 'phone', type: 'phone', required: true },
          ],
        },
      })
    ).data.id;
    const rows = [
      ...TRAILING.map((phone, i) => ({ name: `bad ${i}`, phone })),
      { name: 'spaced', phone: '+1 (415) 555-0102' },
      { name: 'plain', phone: '+14155550103' },
    ];
    const job = await must('POST', `/api/v1/contact-lists/${list}/contacts`, { contacts: rows });
    const done = await until('the import', async () => {
      const j = await must('GET', `/api/v1/import-jobs/${job.jobId}`);
      return j.status === 'completed' && j;
    });
    expect(done.progress).toEqual({ total: rows.length, processed: rows.length, successful: 2, failed: TRAILING.length });
    expect(done.errors.map((e: any) => [e.row, e.field])).toEqual(TRAILING.map((_, i) => [i + 1, 'phone']));
    const stored = (await must('GET', `/api/v1/contact-lists/${list}/contacts`)).data.map((c: any) => c.phone);
    expect(stored).toEqual(['+14155550102', '+14155550103']);
  });

  it('trigger refuses the same values, and takes the same numbers (stored in E.164)', async () => {
    const agent = (await must('POST', '/api/v1/agents', { name: 'Caller', instructions: 'Call people.', engine: 'realtime' })).data.id;
    const c = (await must('POST', '/api/v1/campaigns', { name: 'API', type: 'api', agentId: agent })).data.id;
    await must('POST', `/api/v1/campaigns/${c}/start`);
    for (const phoneNumber of TRAILING) {
      const r = await emu.api('POST', `/api/v1/campaigns/${c}/trigger`, { phoneNumber });
      expect(r.status, phoneNumber).toBe(400);
      expect(r.body.error.details[0].field).toBe('phoneNumber');
    }
    const ok = await emu.api('POST', `/api/v1/campaigns/${c}/trigger`, { phoneNumber: '+1 (415) 555-0102' });
    expect(ok.status).toBe(201);
    expect(ok.body.data.phoneNumber).toBe('+14155550102');
  });
});

describe('document 1: "Paged listings add meta.pagination = { nextCursor: <cursor or null>, limit }"', () => {
  it('the agents listing: following nextCursor visits every agent once, then ends with null', async () => {
    const e = await startTestEmulator();
    try {
      const created: string[] = [];
      for (let i = 0; i < 7; i++)
        created.push((await e.api('POST', '/api/v1/agents', { name: `Paged ${i}`, instructions: 'x', engine: 'realtime' })).body.data.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 10; pages++) {
        const r: { status: number; body: any } = await e.api('GET', `/api/v1/agents?pageSize=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(r.status).toBe(200);
        seen.push(...r.body.data.agents.map((a: any) => a.id));
        cursor = r.body.meta.pagination.nextCursor;
        expect(r.body.meta.pagination.limit).toBe(3);
        if (cursor === null) break;
      }
      expect(cursor).toBeNull();
      expect(seen).toEqual(created);
      // a cursor this server never gave, or one that contradicts page, is a 400
      expect((await e.api('GET', '/api/v1/agents?cursor=abc')).status).toBe(400);
      expect((await e.api('GET', '/api/v1/agents?cursor=2&page=3')).status).toBe(400);
      expect((await e.api('GET', '/api/v1/agents?cursor=2&page=2')).status).toBe(200);
    } finally {
      await e.close();
    }
  });

  it('the versions listing: following nextCursor visits every version once, newest first', async () => {
    const a = (await must('POST', '/api/v1/agents', { name: 'Versions', instructions: 'v1', engine: 'realtime' })).data.id;
    for (let v = 2; v <= 6; v++) await must('PATCH', `/api/v1/agents/${a}`, { instructions: `v${v}` });
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const body: any = await must('GET', `/api/v1/agents/${a}/versions?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...body.data.versions.map((x: any) => x.versionNumber));
      cursor = body.meta.pagination.nextCursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual([6, 5, 4, 3, 2, 1]);
  });
});

describe('document 1: "Runs, calls and eval results record the version they were made against"', () => {
  it('each result carries agentVersion, the version the run was made against', async () => {
    const a = (await must('POST', '/api/v1/agents', { name: 'Versioned', instructions: 'Help callers book visits.', engine: 'realtime' })).data.id;
    await must('PATCH', `/api/v1/agents/${a}`, { instructions: 'Help callers book and move visits.' });
    const s = (await must('POST', `/api/v1/agents/${a}/evals`, { name: 'S', iterationsPerScenario: 2 })).data.id;
    await must('POST', `/api/v1/agents/${a}/evals/${s}/scenarios`, { name: 'Book', persona: 'A polite caller', goal: 'Book a visit', category: 'happy_path' });
    const run = (await must('POST', `/api/v1/agents/${a}/evals/${s}/runs`)).data.id;
    // a change while the run goes on does not change what it was made against
    await must('PATCH', `/api/v1/agents/${a}`, { instructions: 'Something else entirely.' });
    const done = await until('the run', async () => {
      const r = (await must('GET', `/api/v1/agents/${a}/evals/${s}/runs/${run}`)).data.run;
      return (r.status === 'completed' || r.status === 'failed') && r;
    });
    expect(done.agentVersion).toBe(2);
    const results = (await must('GET', `/api/v1/agents/${a}/evals/${s}/runs/${run}/results`)).data.results;
    expect(results).toHaveLength(2);
    for (const r of results) expect(r.agentVersion).toBe(2);
  });
});
