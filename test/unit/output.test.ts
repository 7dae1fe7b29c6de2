import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Output, type OutputSettings } from '../../src/ui/output.js';
import type { Column } from '../../src/ui/format.js';

interface Row {
  id: string;
  name: string;
  n?: number;
}
const columns: Column<Row>[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'name', value: (r) => r.name },
  { header: 'n', value: (r) => r.n },
];
const rows: Row[] = [
  { id: 'a1', name: 'Alpha', n: 1 },
  { id: 'b2', name: 'Tab\there\nnewline' },
];

function make(settings: Partial<OutputSettings>) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c));
  stderr.on('data', (c: Buffer) => (err += c));
  const o = new Output(stdout, stderr, { quiet: false, color: false, stdoutIsTTY: false, ...settings });
  return { o, out: () => out, err: () => err };
}

async function* slowly<T>(items: T[]): AsyncGenerator<T> {
  for (const i of items) {
    await new Promise((r) => setTimeout(r, 1));
    yield i;
  }
}

describe('Output.list', () => {
  it('prints TSV without headers when piped and no format was asked', async () => {
    const t = make({});
    expect(t.o.format).toBe('tsv');
    await t.o.list(rows, { columns });
    expect(t.out()).toBe('a1\tAlpha\t1\nb2\tTab\\there\\nnewline\t\n');
  });

  it('prints a table with headers on a terminal', async () => {
    const t = make({ stdoutIsTTY: true });
    await t.o.list(rows, { columns });
    const lines = t.out().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+N$/);
    expect(lines[1]).toMatch(/^a1\s+Alpha\s+1$/);
  });

  it('says so on stderr when a table is empty, and prints nothing on stdout', async () => {
    const t = make({ stdoutIsTTY: true });
    await t.o.list([], { columns, empty: 'No rows.' });
    expect(t.out()).toBe('');
    expect(t.err()).toBe('No rows.\n');
  });

  it('json is an array, also when empty', async () => {
    const t = make({ format: 'json' });
    await t.o.list(slowly(rows), { columns });
    expect(JSON.parse(t.out())).toEqual(rows);
    const e = make({ format: 'json' });
    await e.o.list([], { columns });
    expect(JSON.parse(e.out())).toEqual([]);
  });

  it('ndjson is one object per line', async () => {
    const t = make({ format: 'ndjson', stdoutIsTTY: true });
    await t.o.list(slowly(rows), { columns });
    expect(
      t
        .out()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(rows);
  });

  it('-q prints ids only', async () => {
    const t = make({ quiet: true, stdoutIsTTY: true });
    await t.o.list(rows, { columns });
    expect(t.out()).toBe('a1\nb2\n');
  });

  it('--query filters the JSON data with JMESPath', async () => {
    const t = make({ query: '[?n].name' });
    await t.o.list(rows, { columns });
    expect(JSON.parse(t.out())).toEqual(['Alpha']);
    const tsv = make({ query: '[].[id, name]', format: 'tsv' });
    await tsv.o.list(rows, { columns });
    expect(tsv.out()).toBe('a1\tAlpha\nb2\tTab\\there\\nnewline\n');
  });

  it('a bad --query is a usage error', async () => {
    const t = make({ query: '[?' });
    await expect(t.o.list(rows, { columns })).rejects.toMatchObject({ exitCode: 2 });
  });

  it('streams: rows are written before the listing ends', async () => {
    const t = make({ format: 'ndjson' });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* gen() {
      yield rows[0]!;
      await gate;
      yield rows[1]!;
    }
    const done = t.o.list(gen(), { columns });
    await new Promise((r) => setTimeout(r, 10));
    expect(t.out()).toBe(`${JSON.stringify(rows[0])}\n`);
    release();
    await done;
    expect(t.out().trim().split('\n')).toHaveLength(2);
  });
});

describe('a slow table listing', () => {
  it('shows a spinner on stderr while it waits, and stops it before printing', async () => {
    const events: string[] = [];
    const t = make({
      stdoutIsTTY: true,
      spinner: async (text) => {
        events.push(`start ${text}`);
        return { text: (x) => events.push(`text ${x}`), stop: () => events.push('stop'), succeed() {}, fail() {} };
      },
    });
    async function* slow() {
      await new Promise((r) => setTimeout(r, 400));
      yield rows[0]!;
      yield rows[1]!;
    }
    await t.o.list(slow(), { columns });
    expect(events[0]).toBe('start Loading…');
    expect(events.at(-1)).toBe('stop');
    expect(t.out()).toMatch(/^ID/);
  });

  it('starts no spinner when the rows come quickly', async () => {
    const events: string[] = [];
    const t = make({
      stdoutIsTTY: true,
      spinner: async () => {
        events.push('start');
        return { text() {}, stop() {}, succeed() {}, fail() {} };
      },
    });
    await t.o.list(rows, { columns });
    await new Promise((r) => setTimeout(r, 350));
    expect(events).toEqual([]);
  });
});

describe('Output.item', () => {
  const fields: Column<Row>[] = columns;
  it('key<TAB>value lines when piped', async () => {
    const t = make({});
    await t.o.item(rows[0]!, { fields });
    expect(t.out()).toBe('id\ta1\nname\tAlpha\nn\t1\n');
  });
  it('JSON with --json, ids with -q', async () => {
    const j = make({ format: 'json' });
    await j.o.item(rows[0]!, { fields });
    expect(JSON.parse(j.out())).toEqual(rows[0]);
    const q = make({ quiet: true });
    await q.o.item(rows[0]!, { fields });
    expect(q.out()).toBe('a1\n');
  });
  it('a detail view on a terminal, without colour codes when colour is off', async () => {
    const t = make({ stdoutIsTTY: true });
    await t.o.item(rows[0]!, { fields });
    expect(t.out()).toMatch(/^id\s+a1\nname\s+Alpha\nn\s+1\n$/);
    expect(t.out()).not.toContain('\u001b[');
  });
});
