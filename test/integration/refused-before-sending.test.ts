// Refusals that come before anything is sent: ids that could not stay one path segment,
// settings that cannot be used (base URL, numbers, API key), config and state folders that
// cannot be written, damaged config and state files, and import files that are not UTF-8.
// Each: the exit code, exactly one line on stderr naming the problem (and the setting's
// source, the folder or the file), and not one request seen by the emulator.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type CliResult } from '../helpers/run-cli.js';

let emu: TestEmulator;
let dir: string;
let env: Record<string, string>;
let agentId: string;
let campaignId: string;
let listId: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-refused-'));
  env = { ...cliEnv(emu.url, ORG_A.apiKey, join(dir, 'config')), VAP_STATE_DIR: join(dir, 'state') };
  agentId = (await emu.api('POST', '/api/v1/agents', { name: 'A', instructions: 'Hi.', engine: 'realtime', variables: [] })).body.data.id;
  listId = (
    await emu.api('POST', '/api/v1/contact-lists', {
      name: 'L',
      schema: {
        fields: [
          { name: 'name', type: 'string', required: true },
          { name: 'phone', type: 'phone' },
        ],
      },
    })
  ).body.data.id;
  campaignId = (await emu.api('POST', '/api/v1/campaigns', { name: 'C', direction: 'outbound', contactListId: listId, agentId })).body.data.id;
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  await emu.clearRequests();
});

/** Exactly one `error: …` line, the exit code, and no request at the emulator. */
async function expectRefused(r: CliResult, code: number, line: RegExp): Promise<void> {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stderr.split('\n'), r.stderr).toHaveLength(2); // one line and its newline
  expect(r.stderr).toMatch(/^error: /);
  expect(r.stderr).toMatch(line);
  expect(r.stdout).toBe('');
  expect(await emu.requests()).toEqual([]);
}

describe('ids stay one path segment (exit 2, nothing sent)', () => {
  it('`campaigns contacts remove <campaign> .. --yes` no longer deletes the campaign', async () => {
    const r = await runCli(['campaigns', 'contacts', 'remove', campaignId, '..', '--yes'], { env });
    await expectRefused(r, 2, /^error: <contactId\.\.\.> "\.\." is not a valid id: "\.\." is not an id; an id is one path segment/);
    expect((await emu.api('GET', `/api/v1/campaigns/${campaignId}`)).status).toBe(200);
  });

  it('empty, ".", "..", and ids with / \\ ? # or a control character, in any verb', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['agents', 'get', ''], /<agentId> "" is not a valid id: it is empty/],
      [['agents', 'delete', '.', '--yes'], /<agentId> "\." is not a valid id/],
      [['agents', 'versions', 'ag/../x'], /it contains "\/"/],
      [['contact-lists', 'get', 'cl\\1'], /it contains "\\"/],
      [['import-jobs', 'get', 'job?x=1'], /it contains "\?"/],
      [['webhooks', 'delete', 'we#1', '--yes'], /it contains "#"/],
      [['evals', 'get', 'ev\u0007x', '--agent', agentId], /<evalId\|\[evalId\]|\[evalId\] "ev\\x07x" is not a valid id: it contains a control character/],
      [['calls', 'tail', 'c\u001b[2J'], /<callId> "c\\e\[2J" is not a valid id/],
      [['campaigns', 'get', 'c\u202e1'], /it contains a control character/],
    ];
    for (const [argv, line] of cases) {
      await expectRefused(await runCli(argv, { env }), 2, line);
    }
  });

  it('an id given as an option is checked where it goes into the path', async () => {
    await expectRefused(await runCli(['evals', 'list', '--agent', '..'], { env }), 2, /^error: "\.\." is not a valid id/);
    await expectRefused(await runCli(['evals', 'list', '--agent', 'a/b'], { env }), 2, /it contains "\/"/);
  });
});

describe('settings are checked before they are used (exit 2, named with their source)', () => {
  const host = () => emu.url.replace(/^http:\/\//, '');

  it('a base URL without a scheme, with another scheme, unparsable, or ending in /api/v1', async () => {
    await expectRefused(
      await runCli(['agents', 'list', '--base-url', host()], { env }),
      2,
      new RegExp(`the base URL "${host()}" from --base-url has no scheme: a base URL starts with http:// or https:// \\(did you mean http://${host()}`),
    );
    await expectRefused(
      await runCli(['agents', 'list'], { env: { ...env, VAP_BASE_URL: `ftp://${host()}` } }),
      2,
      /from VAP_BASE_URL \(environment\) has the scheme ftp: only http and https are supported/,
    );
    await expectRefused(
      await runCli(['agents', 'list'], { env: { ...env, VAP_BASE_URL: 'http://exa mple.com' } }),
      2,
      /from VAP_BASE_URL \(environment\) contains white space/,
    );
    await expectRefused(
      await runCli(['agents', 'list', '--base-url', `${emu.url}/api/v1`], { env }),
      2,
      new RegExp(`ends in /api/v1, which vap adds to every path itself; drop it: ${emu.url.replace(/[.]/g, '\\.')}`),
    );
    await expectRefused(await runCli(['agents', 'list', '--base-url', `${emu.url}/api/v1/`], { env }), 2, /ends in \/api\/v1/);
  });

  it('a bad base URL stored in a profile names the profile and the config file', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'vap-refused-cfg-'));
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: { default: { apiKey: ORG_A.apiKey, baseUrl: host() } } }));
    const r = await runCli(['agents', 'list'], { env: { VAP_CONFIG_DIR: configDir } });
    await expectRefused(
      r,
      2,
      new RegExp(`from base_url of profile "default" in ${configDir.replace(/[.]/g, '\\.')}/config\\.json has no scheme.*vap config set base_url`),
    );
  });

  it('auth login with a base URL without a scheme (no more "could not reach null")', async () => {
    const r = await runCli(['auth', 'login', '--with-key', '--base-url', `localhost:${emu.url.split(':').pop()}`], {
      env: { VAP_CONFIG_DIR: join(dir, 'login') },
      stdin: ORG_A.apiKey,
    });
    await expectRefused(r, 2, /from --base-url has no scheme/);
    expect(r.stderr).not.toContain('null');
  });

  it('numeric settings that are not numbers', async () => {
    await expectRefused(
      await runCli(['agents', 'list'], { env: { ...env, VAP_TIMEOUT_MS: 'soon' } }),
      2,
      /^error: VAP_TIMEOUT_MS \(environment\) is "soon", not a whole number from 1 to \d+; set it to the per-request timeout in milliseconds, or unset it/,
    );
    await expectRefused(
      await runCli(['events', 'tail'], { env: { ...env, VAP_STREAM_MAX_RETRY_MS: '-5' } }),
      2,
      /VAP_STREAM_MAX_RETRY_MS \(environment\) is "-5"/,
    );
    await expectRefused(await runCli(['agents', 'list'], { env: { ...env, VAP_TIMEOUT_MS: '1e3' } }), 2, /VAP_TIMEOUT_MS/);
  });

  it('an API key with a space or a control character: exit 2, not "could not reach" after retries', async () => {
    await expectRefused(
      await runCli(['agents', 'list'], { env: { ...env, VAP_API_KEY: 'key with space' } }),
      2,
      /^error: VAP_API_KEY \(environment\) contains white space .*set VAP_API_KEY to the key alone/,
    );
    await expectRefused(
      await runCli(['calls', 'list'], { env: { ...env, VAP_API_KEY: 'key\u0007bell' } }),
      2,
      /VAP_API_KEY \(environment\) contains a control character/,
    );
    await expectRefused(await runCli(['agents', 'list'], { env: { ...env, VAP_API_KEY: 'clé' } }), 2, /cannot go in an HTTP header/);
    const configDir = mkdtempSync(join(tmpdir(), 'vap-refused-key-'));
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: { work: { apiKey: 'key\nsplit', baseUrl: emu.url } } }));
    await expectRefused(
      await runCli(['agents', 'list', '--profile', 'work'], { env: { VAP_CONFIG_DIR: configDir } }),
      2,
      /the API key of profile "work" in .*config\.json contains white space.*vap auth login --profile work/,
    );
    // The key itself is never printed.
    const r = await runCli(['agents', 'list'], { env: { ...env, VAP_API_KEY: 'secret value' } });
    expect(r.stderr).not.toContain('secret value');
  });
});

describe('folders that cannot be written, and damaged files (one line naming them)', () => {
  it('a config folder that cannot be created: auth login is refused before the key is checked', async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, 'not a folder');
    const r = await runCli(['auth', 'login', '--with-key'], { env: { VAP_CONFIG_DIR: join(blocker, 'vap'), VAP_BASE_URL: emu.url }, stdin: ORG_A.apiKey });
    await expectRefused(
      r,
      2,
      new RegExp(
        `cannot write the config file .* in the folder ${blocker.replace(/[.]/g, '\\.')}/vap: a part of the path is a file, not a folder; make the folder writable, or set VAP_CONFIG_DIR`,
      ),
    );
  });

  it('a state folder that cannot be written: the import is refused before the schema is asked for', async () => {
    const blocker = join(dir, 'state-file');
    writeFileSync(blocker, 'x');
    const csv = join(dir, 'ok.csv');
    writeFileSync(csv, 'name,phone\nAda,+14155550100\n');
    const r = await runCli(['contacts', 'import', listId, csv], { env: { ...env, VAP_STATE_DIR: blocker } });
    await expectRefused(
      r,
      2,
      new RegExp(
        `cannot write to the folder ${blocker.replace(/[.]/g, '\\.')}/imports \\(from VAP_STATE_DIR=.*\\): a part of the path is a file, not a folder; make it writable, set VAP_STATE_DIR to a folder you can write, or pass --state-file`,
      ),
    );
  });

  it('a damaged config file is named with how to recover, and never overwritten', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'vap-refused-broken-'));
    const file = join(configDir, 'config.json');
    writeFileSync(file, '{"profiles": {"default": {"apiKey": "k"');
    await expectRefused(
      await runCli(['agents', 'list'], { env: { VAP_CONFIG_DIR: configDir } }),
      2,
      new RegExp(
        `the config file ${file.replace(/[.]/g, '\\.')} is not valid JSON .*; fix it, or move it aside \\(mv .*\\) and run \`vap auth login\` again; vap does not overwrite it`,
      ),
    );
    await expectRefused(
      await runCli(['auth', 'login', '--with-key'], { env: { VAP_CONFIG_DIR: configDir, VAP_BASE_URL: emu.url }, stdin: ORG_A.apiKey }),
      2,
      /is not valid JSON/,
    );
    await expectRefused(await runCli(['config', 'set', 'base_url', emu.url], { env: { VAP_CONFIG_DIR: configDir } }), 2, /is not valid JSON/);
    expect(readFileSync(file, 'utf8')).toBe('{"profiles": {"default": {"apiKey": "k"');
    writeFileSync(file, '{"profiles": []}');
    await expectRefused(await runCli(['agents', 'list'], { env: { VAP_CONFIG_DIR: configDir } }), 2, /is not a vap config file: "profiles" is not an object/);
  });

  it('a damaged import state file is named with how to recover, before anything is sent; --force keeps it aside', async () => {
    const csv = join(dir, 'st.csv');
    writeFileSync(csv, 'name,phone\nAda,+14155550100\n');
    const state = join(dir, 'st.state.json');
    writeFileSync(state, '{"kind":"vap-contacts-import"');
    const r = await runCli(['contacts', 'import', listId, csv, '--state-file', state], { env });
    await expectRefused(
      r,
      2,
      new RegExp(
        `the import state file ${state.replace(/[.]/g, '\\.')} is damaged: it is not valid JSON .*restore it from a backup to resume, or pass --force`,
      ),
    );
    await expectRefused(await runCli(['contacts', 'import', listId, csv, '--state-file', state, '--resume'], { env }), 2, /is damaged/);
    expect(readFileSync(state, 'utf8')).toBe('{"kind":"vap-contacts-import"');
    const forced = await runCli(['contacts', 'import', listId, csv, '--state-file', state, '--force'], { env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain(`the damaged state file ${state} was moved to ${state}.broken`);
    expect(readFileSync(`${state}.broken`, 'utf8')).toBe('{"kind":"vap-contacts-import"');
  });
});

describe('import files that are not UTF-8 (exit 2, nothing sent)', () => {
  it('a CSV: the first bad byte with its line, column and data row, and the flag that reads it', async () => {
    const file = join(dir, 'latin1.csv');
    writeFileSync(file, Buffer.concat([Buffer.from('name,phone\n"Two\nlines",+14155550100\n\nJos'), Buffer.from([0xe9]), Buffer.from(',+14155550101\n')]));
    const r = await runCli(['contacts', 'import', listId, file], { env });
    await expectRefused(
      r,
      2,
      new RegExp(
        `^error: cannot read ${file.replace(/[.]/g, '\\.')}: it is not valid UTF-8: byte 0xE9 at line 5, column 4 \\(data row 2\\); pass --encoding with the file's encoding, e\\.g\\. --encoding latin1`,
      ),
    );
    await expectRefused(await runCli(['contacts', 'import', listId, file, '--dry-run'], { env }), 2, /byte 0xE9 at line 5, column 4 \(data row 2\)/);
  });

  it('a JSON file, a byte cut off at the end, a UTF-16 file, and an unknown --encoding', async () => {
    const json = join(dir, 'bad.json');
    writeFileSync(json, Buffer.concat([Buffer.from('[{"name": "a"},\n  {"name": "b'), Buffer.from([0xc3]), Buffer.from('"}]')]));
    await expectRefused(await runCli(['contacts', 'import', listId, json], { env }), 2, /byte 0xC3 at line 2, column 14;/);
    const cut = join(dir, 'cut.csv');
    writeFileSync(cut, Buffer.concat([Buffer.from('name\nAd'), Buffer.from([0xe2, 0x82])]));
    await expectRefused(await runCli(['contacts', 'import', listId, cut], { env }), 2, /byte 0xE2 at line 2, column 3 \(data row 1\)/);
    const utf16 = join(dir, 'utf16.csv');
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('name,phone\n', 'utf16le')]));
    await expectRefused(
      await runCli(['contacts', 'import', listId, utf16], { env }),
      2,
      /byte 0xFF at line 1, column 1 \(in the header\); it starts with a UTF-16 byte order mark: pass --encoding utf-16le/,
    );
    await expectRefused(
      await runCli(['contacts', 'import', listId, json, '--encoding', 'klingon'], { env }),
      2,
      /--encoding "klingon" is not an encoding this Node\.js can read/,
    );
  });
});
