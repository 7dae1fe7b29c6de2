import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator } from '../helpers/emulator.js';
import { call, checkProgress, createList, people, waitForJob } from './emulator-contacts-helpers.js';

const A = ORG_A.apiKey;
let dir: string;
let files: Server;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vap-contacts-'));
  const csv = `name,phone\n${people(2000)
    .map((p) => `${p.name},${p.phone}`)
    .join('\n')}\n`;
  files = createServer((_req, res) => res.end(csv));
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => files.close(r));
  rmSync(dir, { recursive: true, force: true });
});

async function untilMidway(emu: { url: string }, jobId: string) {
  for (;;) {
    const g = await call(emu, A, 'GET', `/api/v1/import-jobs/${jobId}`);
    checkProgress(g.body);
    if (g.body.status === 'processing' && g.body.progress.processed > 0) return g.body;
    expect(['pending', 'processing']).toContain(g.body.status);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('persistence with --data-dir', () => {
  it('keeps lists, contacts and jobs, and resumes jobs in flight after a restart', async () => {
    const first = await startTestEmulator({ dataDir: dir, timeScale: 5, allowLoopbackUrls: true });
    let listId: string;
    let inlineJob: string;
    let fileJob: string;
    let doneJob: string;
    try {
      const l = await createList(first, A, 'persisted');
      listId = l.id;
      doneJob = (await call(first, A, 'POST', `/api/v1/contact-lists/${listId}/contacts`, { contacts: people(3, 50_000) })).body.jobId;
      await waitForJob(first, A, doneJob);
      inlineJob = (await call(first, A, 'POST', `/api/v1/contact-lists/${listId}/contacts`, { contacts: people(2500, 10_000) })).body.jobId;
      fileJob = (await call(first, A, 'POST', `/api/v1/contact-lists/${listId}/contacts`, { fileUrl: `${base}/people.csv`, fileFormat: 'csv' })).body.jobId;
      await untilMidway(first, inlineJob);
      await untilMidway(first, fileJob);
    } finally {
      await first.close();
    }

    const second = await startTestEmulator({ dataDir: dir, timeScale: 1000, allowLoopbackUrls: true });
    try {
      const list = await call(second, A, 'GET', `/api/v1/contact-lists/${listId}`);
      expect(list.status).toBe(200);
      expect(list.body.data.name).toBe('persisted');
      expect((await call(second, A, 'GET', `/api/v1/import-jobs/${doneJob}`)).body.status).toBe('completed');
      const a = await waitForJob(second, A, inlineJob);
      const b = await waitForJob(second, A, fileJob);
      expect(a.status).toBe('completed');
      expect(a.progress).toEqual({ total: 2500, processed: 2500, successful: 2500, failed: 0 });
      expect(b.status).toBe('completed');
      expect(b.progress).toEqual({ total: 2000, processed: 2000, successful: 2000, failed: 0 });
      // Every row stored exactly once across the restart, and ids never reused.
      const ids = new Set<string>();
      let total = 0;
      for (let page = 1; ; page++) {
        const r = await call(second, A, 'GET', `/api/v1/contact-lists/${listId}/contacts?limit=100&page=${page}`);
        for (const c of r.body.data) ids.add(c.id);
        total = r.body.pagination.total;
        if (page >= r.body.pagination.totalPages) break;
      }
      expect(total).toBe(3 + 2500 + 2000);
      expect(ids.size).toBe(total);
      // Tenant isolation survives the restart too.
      expect((await call(second, ORG_B.apiKey, 'GET', `/api/v1/contact-lists/${listId}`)).status).toBe(404);
      // A new list gets a fresh id.
      const again = await createList(second, A, 'after restart');
      expect(again.id).not.toBe(listId);
    } finally {
      await second.close();
    }
  });
});
