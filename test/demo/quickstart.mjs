// `npm run demo`: starts the bundled emulator and walks through a real vap session
// against it, printing each command and what vap prints, as a user would see it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/vap.js', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'vap-demo-'));
const KEY = 'vap_demo_quickstart';

const emulator = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--json', '--org', `demo:${KEY}`, '--time-scale', '20'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const { url } = await new Promise((resolve, reject) => {
  createInterface({ input: emulator.stdout }).once('line', (line) => resolve(JSON.parse(line)));
  emulator.once('exit', (code) => reject(new Error(`the emulator exited with ${code}`)));
});

const env = { ...process.env, VAP_CONFIG_DIR: join(work, 'config'), VAP_BASE_URL: url };
delete env.VAP_API_KEY;
delete env.VAP_PROFILE;

/** Runs one vap command, showing it and its output; returns stdout when captured. */
const quote = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

function vap(args, { input, capture = false, show = args.map(quote).join(' ') } = {}) {
  process.stdout.write(`\n\x1b[1m$ vap ${show}\x1b[0m\n`);
  const r = spawnSync(process.execPath, [BIN, ...args], { env, input, stdio: [input === undefined ? 'inherit' : 'pipe', capture ? 'pipe' : 'inherit', 'inherit'], encoding: 'utf8' });
  if (capture) process.stdout.write(r.stdout);
  if (r.status !== 0) {
    emulator.kill('SIGINT');
    throw new Error(`vap ${show} exited with ${r.status}`);
  }
  return (r.stdout ?? '').trim();
}

try {
  console.log(`The emulator is running at ${url} with one organization (key ${KEY}).`);
  vap(['auth', 'login', '--with-key'], { input: `${KEY}\n`, show: `auth login --with-key   # key read from stdin` });
  vap(['auth', 'status']);
  const agentId = vap(['agents', 'create', '--name', 'Front desk', '--engine', 'realtime', '--instructions', 'Greet callers, answer opening-hours questions and book appointments.', '--variable', 'customer_name=Name of the caller', '-q'], { capture: true });
  vap(['agents', 'list']);
  vap(['voices', 'list', '--language', 'es']);
  const voiceId = vap(['voices', 'list', '--language', 'es-ES', '-q'], { capture: true }).split('\n')[0];
  vap(['agents', 'voice', agentId, '--set', voiceId, '--language', 'es-ES']);
  vap(['agents', 'update', agentId, '--instructions', 'Greet callers in Spanish, answer opening-hours questions and book appointments.']);
  vap(['agents', 'versions', agentId]);
  vap(['agents', 'rollback', agentId, '--version', '1', '--reason', 'Spanish greeting confused callers']);
  vap(['agents', 'get', agentId]);

  const csv = join(work, 'leads.csv');
  writeFileSync(csv, 'name,phone,email\nAda Lovelace,+14155550100,ada@example.com\nAlan Turing,(415) 555-0101,alan@example.com\nGrace Hopper,not-a-phone,grace@example.com\n');
  const listId = vap(['contact-lists', 'create', '--name', 'Leads', '--field', 'name:string:required', '--field', 'phone:phone:required', '--field', 'email:email', '-q'], { capture: true });
  vap(['contacts', 'import', listId, csv, '--default-country', 'US', '--allow-invalid'], { show: `contacts import ${listId} leads.csv --default-country US --allow-invalid` });
  vap(['contacts', 'list', listId]);
  console.log('\nDone. Every command above talked to the local emulator over HTTP.');
} finally {
  emulator.kill('SIGINT');
  rmSync(work, { recursive: true, force: true });
}
