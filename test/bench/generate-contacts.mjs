// Generates a contacts CSV for the import benchmark: six columns, one of every schema
// type (string, number, boolean, phone, email, date), about 5% of rows invalid.
// Deterministic (seeded), written in large chunks so generation stays fast.
//
//   node test/bench/generate-contacts.mjs <out.csv> <rows> [--invalid 0.05] [--seed 1]
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** The schema of the list the generated file is imported into. */
export const BENCH_SCHEMA = {
  fields: [
    { name: 'name', type: 'string', required: true },
    { name: 'score', type: 'number' },
    { name: 'active', type: 'boolean' },
    { name: 'phone', type: 'phone', required: true },
    { name: 'email', type: 'email' },
    { name: 'signup', type: 'date' },
  ],
};

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'Ken',
  'Margaret',
  'Dennis',
  'Radia',
  'Tim',
  'Katherine',
  'Linus',
  'Anita',
  'Niklaus',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Thompson',
  'Hamilton',
  'Ritchie',
  'Perlman',
  'Berners-Lee',
  'Johnson',
  'Torvalds',
  'Borg',
  'Wirth',
];
const DOMAINS = ['example.com', 'example.org', 'mail.example.net', 'corp.example.co.uk'];
const US_AREA = ['212', '213', '305', '310', '312', '415', '503', '617', '646', '702', '713', '808', '818', '917'];
const BOOLS = ['true', 'false', 'yes', 'no', '1', '0'];

/** mulberry32: a small seeded PRNG. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n, w) => String(n).padStart(w, '0');

function phone(rand, i) {
  const r = rand();
  const line = pad(i % 10000, 4);
  const exch = 200 + Math.floor(rand() * 800);
  const area = US_AREA[Math.floor(rand() * US_AREA.length)];
  if (r < 0.7) return `+1${area}${exch}${line}`;
  if (r < 0.8) return `(${area}) ${exch}-${line}`; // national: needs --default-country US
  if (r < 0.9) return `+4420${pad(7946 + Math.floor(rand() * 50), 4)}${line}`; // London
  return `+33${1 + Math.floor(rand() * 5)}${pad(Math.floor(rand() * 100), 2)}${pad(exch % 100, 2)}${line}`; // France
}

function date(rand) {
  const y = 2015 + Math.floor(rand() * 10);
  const m = 1 + Math.floor(rand() * 12);
  const d = 1 + Math.floor(rand() * 28);
  return `${y}-${pad(m, 2)}-${pad(d, 2)}`;
}

/** One row; `bad` picks the kind of error (or none). */
function row(rand, i, bad) {
  const first = FIRST[Math.floor(rand() * FIRST.length)];
  const last = LAST[Math.floor(rand() * LAST.length)];
  let name = rand() < 0.1 ? `"${last}, ${first}"` : `${first} ${last}`;
  let score = rand() < 0.5 ? String(Math.floor(rand() * 1000)) : (rand() * 100).toFixed(2);
  let active = BOOLS[Math.floor(rand() * BOOLS.length)];
  let tel = phone(rand, i);
  let email = `${first.toLowerCase()}.${last.toLowerCase()}${i}@${DOMAINS[i % DOMAINS.length]}`;
  let signup = date(rand);
  switch (bad) {
    case 0:
      tel = `555-01${pad(i % 100, 2)}x`;
      break;
    case 1:
      email = `${first.toLowerCase()}.at.example.com`;
      break;
    case 2:
      signup = `${pad(1 + (i % 28), 2)}/13/2020`;
      break;
    case 3:
      score = 'n/a';
      break;
    case 4:
      active = 'maybe';
      break;
    case 5:
      name = '';
      break;
  }
  return `${name},${score},${active},${tel},${email},${signup}\n`;
}

/**
 * Writes `rows` data rows (plus a header) to `path`. Returns the number of rows
 * made invalid on purpose.
 */
export async function generateContactsCsv(path, rows, { invalidRate = 0.05, seed = 1 } = {}) {
  const rand = prng(seed);
  const out = createWriteStream(path);
  let chunk = 'name,score,active,phone,email,signup\n';
  let invalid = 0;
  for (let i = 1; i <= rows; i++) {
    let bad = -1;
    if (rand() < invalidRate) {
      bad = Math.floor(rand() * 6);
      invalid++;
    }
    chunk += row(rand, i, bad);
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  return { invalid };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [path, rowsText] = process.argv.slice(2);
  if (!path || !rowsText) {
    process.stderr.write('usage: node test/bench/generate-contacts.mjs <out.csv> <rows> [--invalid 0.05] [--seed 1]\n');
    process.exit(2);
  }
  const flag = (name, dflt) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : dflt;
  };
  const { invalid } = await generateContactsCsv(path, Number(rowsText), { invalidRate: flag('--invalid', 0.05), seed: flag('--seed', 1) });
  process.stdout.write(`${path}: ${rowsText} rows, ${invalid} invalid on purpose\n`);
}
