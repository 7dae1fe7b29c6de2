// `npm run demo`: starts the bundled emulator and walks through a real vap session
// against it, printing each command and what vap prints, as a user would see it.
//
// As a user at a terminal would see it: vap renders tables only when stdout is a
// terminal (piped, a listing is headerless TSV). So each command shown runs under a
// pseudo-terminal made by `script` (util-linux on Linux, in every Debian and Ubuntu
// image via bsdutils; the BSD one on macOS), even when the demo itself is piped or run
// by a test. Commands whose output the demo reads (`-q` ids) and the one `--json`
// example run piped, which is the point they make: pipes get machine output.
// Without `script`, everything runs piped, and the demo says so.
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

const env = { ...process.env, VAP_CONFIG_DIR: join(work, 'config'), VAP_STATE_DIR: join(work, 'state'), VAP_BASE_URL: url };
delete env.VAP_API_KEY;
delete env.VAP_PROFILE;

/** Runs one vap command, showing it and its output; returns stdout when captured. */
const quote = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

/** How to run a command under a pseudo-terminal here, or undefined. */
function ptyRunner() {
  if (process.env.VAP_DEMO_PTY === '0') return undefined;
  const probe = spawnSync('script', process.platform === 'linux' ? ['-qec', 'true', '/dev/null'] : ['-q', '/dev/null', 'true'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) return undefined;
  // util-linux: script -q -e -c "command line" /dev/null; BSD/macOS: script -q /dev/null command args…
  return process.platform === 'linux'
    ? (argv) => ['script', ['-qec', argv.map(quote).join(' '), '/dev/null']]
    : (argv) => ['script', ['-q', '/dev/null', ...argv]];
}
const pty = ptyRunner();

function vap(args, { input, capture = false, piped = false, show = args.map(quote).join(' ') } = {}) {
  process.stdout.write(`\n\x1b[1m$ vap ${show}\x1b[0m\n`);
  let r;
  if (pty && !capture && !piped && input === undefined) {
    // Under a terminal: stdout is a TTY for vap, so tables are drawn as a user sees them.
    const [cmd, argv] = pty([process.execPath, BIN, ...args]);
    r = spawnSync(cmd, argv, {
      env: { ...env, COLUMNS: env.COLUMNS ?? '100', LINES: env.LINES ?? '40' },
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    });
    process.stdout.write(r.stdout.replace(/\r\n/g, '\n'));
  } else {
    r = spawnSync(process.execPath, [BIN, ...args], {
      env,
      input,
      stdio: [input === undefined ? 'ignore' : 'pipe', capture ? 'pipe' : 'inherit', 'inherit'],
      encoding: 'utf8',
    });
    if (capture) process.stdout.write(r.stdout);
  }
  if (r.status !== 0) {
    emulator.kill('SIGINT');
    throw new Error(`vap ${show} exited with ${r.status}`);
  }
  return (r.stdout ?? '').trim();
}

/**
 * Runs one vap command under a pseudo-terminal with its output shown as it comes, so that
 * what vap draws in place (the import's progress bar, redrawn with `\r`) is seen live.
 */
async function vapLive(args, { show = args.map(quote).join(' ') } = {}) {
  if (!pty) return vap(args, { show });
  process.stdout.write(`\n\x1b[1m$ vap ${show}\x1b[0m\n`);
  const [cmd, argv] = pty([process.execPath, BIN, ...args]);
  const child = spawn(cmd, argv, { env: { ...env, COLUMNS: env.COLUMNS ?? '100', LINES: env.LINES ?? '40' }, stdio: ['ignore', 'pipe', 'inherit'] });
  let carry = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    // A terminal's line ends are \r\n; a lone \r (the bar going back to redraw) is kept.
    const text = (carry + chunk).replace(/\r\n/g, '\n');
    carry = text.endsWith('\r') ? '\r' : '';
    process.stdout.write(carry ? text.slice(0, -1) : text);
  });
  const code = await new Promise((resolve) => child.once('close', resolve));
  if (carry) process.stdout.write(carry);
  if (code !== 0) {
    emulator.kill('SIGINT');
    throw new Error(`vap ${show} exited with ${code}`);
  }
}

try {
  console.log(`The emulator is running at ${url} with one organization (key ${KEY}).`);
  console.log(
    pty
      ? 'Each command runs in a terminal of its own (a pseudo-terminal), as you would type it.'
      : 'No `script` command here: commands run piped, so listings print as TSV without headers.',
  );
  vap(['auth', 'login', '--with-key'], { input: `${KEY}\n`, show: `auth login --with-key   # key read from stdin` });
  vap(['auth', 'status']);
  const agentId = vap(
    [
      'agents',
      'create',
      '--name',
      'Front desk',
      '--engine',
      'realtime',
      '--instructions',
      'Greet callers, answer opening-hours questions and book appointments.',
      '--variable',
      'customer_name=Name of the caller',
      '-q',
    ],
    { capture: true },
  );
  vap(['agents', 'list']);
  vap(['voices', 'list', '--language', 'es']);
  const voiceId = vap(['voices', 'list', '--language', 'es-ES', '-q'], { capture: true }).split('\n')[0];
  vap(['agents', 'voice', agentId, '--set', voiceId, '--language', 'es-ES']);
  vap(['agents', 'update', agentId, '--instructions', 'Greet callers in Spanish, answer opening-hours questions and book appointments.']);
  vap(['agents', 'versions', agentId]);
  vap(['agents', 'rollback', agentId, '--version', '1', '--reason', 'Spanish greeting confused callers', '--yes']);
  vap(['agents', 'get', agentId]);

  const csv = join(work, 'leads.csv');
  writeFileSync(
    csv,
    'name,phone,email\nAda Lovelace,+14155550100,ada@example.com\nAlan Turing,(415) 555-0101,alan@example.com\nGrace Hopper,not-a-phone,grace@example.com\n',
  );
  const listId = vap(
    ['contact-lists', 'create', '--name', 'Leads', '--field', 'name:string:required', '--field', 'phone:phone:required', '--field', 'email:email', '-q'],
    { capture: true },
  );
  vap(['contacts', 'import', listId, csv, '--default-country', 'US', '--allow-invalid'], {
    show: `contacts import ${listId} leads.csv --default-country US --allow-invalid`,
  });
  vap(['contacts', 'list', listId]);

  // A file large enough for the progress bar (rows done of the file's rows, sent, rows/s, ETA) to be drawn while it runs.
  const big = join(work, 'leads-20000.csv');
  const rows = Array.from(
    { length: 20_000 },
    (_, i) => `Lead ${i + 1},(415) ${String(200 + Math.floor(i / 10_000)).padStart(3, '0')}-${String(i % 10_000).padStart(4, '0')}`,
  );
  writeFileSync(big, `name,phone\n${rows.join('\n')}\n`);
  const bigList = vap(['contact-lists', 'create', '--name', 'Leads (large)', '--field', 'name:string:required', '--field', 'phone:phone:required', '-q'], {
    capture: true,
  });
  await vapLive(['contacts', 'import', bigList, big, '--default-country', 'US'], {
    show: `contacts import ${bigList} leads-20000.csv --default-country US   # the bar is drawn while it runs`,
  });

  console.log('\nPiped into another program, vap prints data for machines: TSV without headers, or JSON.');
  vap(['contacts', 'list', listId, '--json'], { piped: true, show: `contacts list ${listId} --json | …` });
  vap(['agents', 'list', '-q'], { piped: true, show: 'agents list -q | …   # ids only' });
  console.log('\nDone. Every command above talked to the local emulator over HTTP.');
} finally {
  emulator.kill('SIGINT');
  rmSync(work, { recursive: true, force: true });
}
