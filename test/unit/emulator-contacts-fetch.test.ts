import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileFetcher, FileImportError } from '../../src/emulator/contacts/file-fetch.js';

let server: Server;
let base: string;
const limits = { maxBytes: 200, maxRows: 3, timeoutMs: 300, maxRedirects: 2 };

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/big') {
      // No content-length: the cap is counted on the stream.
      res.writeHead(200, { 'content-type': 'text/csv', 'transfer-encoding': 'chunked' });
      res.write('name\n');
      for (let i = 0; i < 100; i++) res.write(`row${i}\n`);
      return res.end();
    }
    if (req.url === '/declared') {
      res.writeHead(200, { 'content-type': 'text/csv', 'content-length': '1000' });
      return res.end('x'.repeat(1000));
    }
    if (req.url === '/rows') return res.end('name\na\nb\nc\nd\n');
    if (req.url === '/three') return res.end('name\na\nb\nc\n');
    if (req.url === '/slow') {
      res.writeHead(200);
      res.write('name\n');
      return; // never ends
    }
    if (req.url === '/hop1') return res.writeHead(302, { location: '/hop2' }).end();
    if (req.url === '/hop2') return res.writeHead(302, { location: '/hop3' }).end();
    if (req.url === '/hop3') return res.writeHead(302, { location: '/three' }).end();
    if (req.url === '/two-hops') return res.writeHead(301, { location: '/hop3' }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function failure(fetcher: FileFetcher, path: string, format: 'csv' | 'json' = 'csv'): Promise<string> {
  const err = await fetcher.fetchRows(`${base}${path}`, format, new AbortController().signal).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FileImportError);
  return (err as Error).message;
}

describe('FileFetcher', () => {
  it('caps the size on the stream and by content-length', async () => {
    const f = new FileFetcher(true, { ...limits, maxRows: 1000 });
    try {
      expect(await failure(f, '/big')).toMatch(/larger than 200 bytes/);
      expect(await failure(f, '/declared')).toMatch(/1000 bytes; at most 200/);
    } finally {
      await f.close();
    }
  });

  it('caps the number of rows', async () => {
    const f = new FileFetcher(true, limits);
    try {
      expect(await failure(f, '/rows')).toMatch(/more than 3 rows/);
      expect(await f.fetchRows(`${base}/three`, 'csv', new AbortController().signal)).toEqual([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    } finally {
      await f.close();
    }
  });

  it('times out a file that never ends', async () => {
    const f = new FileFetcher(true, limits);
    try {
      expect(await failure(f, '/slow')).toMatch(/not received within/);
    } finally {
      await f.close();
    }
  });

  it('follows at most maxRedirects redirects', async () => {
    const f = new FileFetcher(true, limits);
    try {
      expect(await f.fetchRows(`${base}/two-hops`, 'csv', new AbortController().signal)).toHaveLength(3);
      expect(await failure(f, '/hop1')).toMatch(/more than 2 redirects/);
    } finally {
      await f.close();
    }
  });

  it('refuses loopback without the flag, also for names', async () => {
    const f = new FileFetcher(false, limits);
    try {
      expect(await failure(f, '/three')).toMatch(/not allowed.*loopback/);
      const port = new URL(base).port;
      const err = await f.fetchRows(`http://localhost:${port}/three`, 'csv', new AbortController().signal).catch((e: Error) => e);
      expect((err as Error).message).toMatch(/not allowed/);
    } finally {
      await f.close();
    }
  });

  it('stops when its signal is aborted (cancel)', async () => {
    const f = new FileFetcher(true, { ...limits, timeoutMs: 10_000 });
    try {
      const ctl = new AbortController();
      const p = f.fetchRows(`${base}/slow`, 'csv', ctl.signal);
      setTimeout(() => ctl.abort(), 20);
      const err = await p.catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(FileImportError);
    } finally {
      await f.close();
    }
  });
});
