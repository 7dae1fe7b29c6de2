// Every refusal of agents as code names the command that resolves it: drift, a conflict,
// a blocked suite, a pull that would overwrite a local change, and deletions a push left
// for --prune (in its last line; `push --exit-code` exits 3 for them). A file another
// profile synced is not "changed locally".
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator({ timeScale: 2000 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vap-refusals-'));
});

function vap(args: string[], o: { org?: typeof ORG_A; profile?: string } = {}) {
  return runCli(['--profile', o.profile ?? 'staging', ...args, '--dir', dir], { env: cliEnv(emu.url, (o.org ?? ORG_A).apiKey) });
}

let seq = 0;
async function seed(org = ORG_A) {
  const key = org.apiKey;
  const a = (await emu.api('POST', '/api/v1/agents', { name: `Refusal desk ${++seq}`, instructions: 'Greet the caller.', engine: 'realtime' }, key)).body.data;
  const s = (await emu.api('POST', `/api/v1/agents/${a.id}/evals`, { name: 'Booking', iterationsPerScenario: 1 }, key)).body.data;
  await emu.api(
    'POST',
    `/api/v1/agents/${a.id}/evals/${s.id}/scenarios`,
    { name: 'Book', persona: 'Maria', goal: 'Book a visit', category: 'happy_path' },
    key,
  );
  return a.id as string;
}
const mdOf = () => join(dir, 'agents', readdirSync(join(dir, 'agents'))[0]!, 'agent.md');

describe('every refusal names its way out', () => {
  it('drift names the pull that takes the platform version and the push that overwrites it', async () => {
    const id = await seed();
    expect((await vap(['pull', '--agent', id])).code).toBe(0);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    await emu.api('PATCH', `/api/v1/agents/${id}`, { instructions: 'Changed in the product.' });
    const push = await vap(['push', '--yes']);
    expect(push.code).toBe(1);
    expect(push.stderr).toContain(
      `not applied: agent ${slug}: changed on the platform since the last sync (instructions): \`vap pull --agent ${slug} --profile staging\` takes the platform's version into the files, \`vap push --force --profile staging\` puts the files' back`,
    );
    expect(push.stderr.trim().split('\n').at(-1)).toMatch(/each line above names the command that resolves it; then push again/);
  });

  it('a conflict names both ways, and a pull that would overwrite a local change names push, git checkout and pull --force', async () => {
    const id = await seed();
    expect((await vap(['pull', '--agent', id])).code).toBe(0);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    writeFileSync(mdOf(), readFileSync(mdOf(), 'utf8').replace('Greet the caller.', 'Greet the caller warmly.'));
    await emu.api('PATCH', `/api/v1/agents/${id}`, { instructions: 'Changed in the product.' });
    const diff = await vap(['diff']);
    expect(diff.stdout).toContain(
      `keep the files' with \`vap push --force --profile staging\`, or the platform's with \`vap pull --agent ${slug} --force --profile staging\` (your edit is overwritten)`,
    );
    const pull = await vap(['pull']);
    expect(pull.code).toBe(1);
    expect(pull.stderr).toContain(
      `agents/${slug}/agent.md was changed locally since the last sync; nothing was written; push the change (\`vap push --profile staging\`), discard it (\`git checkout -- agents/${slug}/agent.md\`), or overwrite it with the platform's version (\`vap pull --force --profile staging\`)`,
    );
  });

  it('deletions left for --prune are said in the last line; push --exit-code exits 3 for them', async () => {
    const id = await seed();
    expect((await vap(['pull', '--agent', id])).code).toBe(0);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    rmSync(join(dir, 'agents', slug), { recursive: true });
    const plain = await vap(['push', '--yes']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr.trim().split('\n').at(-1)).toBe(
      `2 deletions not applied (agent ${slug}, suite ${slug}/booking): their files were removed; \`vap push --prune --profile staging\` deletes them on the platform`,
    );
    const gated = await vap(['push', '--yes', '--exit-code']);
    expect(gated.code).toBe(3);
    expect((await vap(['push', '--yes', '--dry-run', '--exit-code'])).code).toBe(3);
    expect((await vap(['push', '--yes', '--prune', '--exit-code'])).code).toBe(0);
  });

  it('pull --profile <other> does not call a file "changed locally" when only another profile synced it', async () => {
    // The files pushed to prod, then staging changed and pulled: the files hold staging's version.
    const idA = await seed(ORG_A);
    expect((await vap(['pull', '--agent', idA])).code).toBe(0);
    const toProd = await vap(['push', '--yes'], { org: ORG_B, profile: 'prod' });
    expect(toProd.code, toProd.stderr).toBe(0);
    await emu.api('PATCH', `/api/v1/agents/${idA}`, { instructions: 'Greet the caller, staging edition.' });
    expect((await vap(['pull'])).code).toBe(0);
    expect(readFileSync(mdOf(), 'utf8')).toContain('staging edition');
    // Nobody edited the file: prod's pull takes prod's version without calling it a local change.
    const r = await vap(['pull'], { org: ORG_B, profile: 'prod' });
    expect(r.stderr).not.toContain('changed locally');
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(mdOf(), 'utf8')).toContain('Greet the caller.');
  });
});
