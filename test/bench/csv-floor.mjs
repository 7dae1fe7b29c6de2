// The floor of the import benchmark: parse a CSV with bare csv-parse, streaming, with
// the options the importer uses (csvParseOptions() in src/contacts/source.ts; a unit
// test checks they are the same), counting records and nothing else.
//
//   node test/bench/csv-floor.mjs <file.csv>   → prints {"rows":…,"parseMs":…}
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse';

export const FLOOR_OPTIONS = {
  bom: true,
  delimiter: ',',
  relax_column_count: true,
  skip_empty_lines: true,
  max_record_size: 4 * 1024 * 1024,
};

/** Parses the file; resolves with the record count (header included) and the time taken. */
export async function parseFloor(path) {
  const started = performance.now();
  let rows = 0;
  const parser = createReadStream(path, { highWaterMark: 256 * 1024 }).pipe(parse(FLOOR_OPTIONS));
  parser.on('data', () => rows++);
  await new Promise((resolve, reject) => {
    parser.on('end', resolve);
    parser.on('error', reject);
  });
  return { rows, parseMs: performance.now() - started };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await parseFloor(process.argv[2]);
  process.stdout.write(`${JSON.stringify(r)}\n`);
}
