// The first step of reading a project (src/ascode/scan.ts): the layout listed, every file read
// and digested. Whatever a repository holds where vap reads is named as a problem (a link, a
// file where a folder belongs, a name that is not a slug, a file over the limit, a folder
// or a FIFO where a file belongs), never followed or waited on; a BOM and CRLF are kept aside.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanProject } from '../../src/ascode/scan.js';

const agent = (name: string) => `---\nname: ${name}\nengine: realtime\nvoice:\n  name: Ava\n  language: en-US\n---\nYou answer the phone.\n`;
const suite = 'name: Smoke\niterations: 1\nstatus: ready\ngate: true\ncriteria:\n  - key: tone\n    name: Tone\n    weight: 1\n';

/** A project of `n` agents, and every odd thing a repository can hold where vap reads. */
function oddProject(n: number): string {
  const root = mkdtempSync(join(tmpdir(), 'vap-scan-'));
  const outside = mkdtempSync(join(tmpdir(), 'vap-scan-outside-'));
  writeFileSync(join(outside, 'agent.md'), agent('Outside'));
  writeFileSync(join(root, 'vap.yaml'), 'version: 1\n');
  for (let i = 0; i < n; i++) {
    const dir = join(root, 'agents', `agent-${i}`);
    mkdirSync(join(dir, 'evals'), { recursive: true });
    writeFileSync(join(dir, 'agent.md'), agent(`Agent ${i}`));
    writeFileSync(join(dir, 'evals', 'smoke.yaml'), suite);
  }
  const a = (p: string) => join(root, 'agents', p);
  writeFileSync(a('agent-0/agent.md'), `\ufeff${agent('With a BOM')}`);
  writeFileSync(a('agent-1/agent.md'), agent('CRLF').replace(/\n/g, '\r\n'));
  symlinkSync(outside, a('linked-folder'));
  mkdirSync(a('linked-file'));
  symlinkSync(join(outside, 'agent.md'), a('linked-file/agent.md'));
  symlinkSync(outside, a('agent-2/evals/linked.yaml'));
  writeFileSync(a('agent-2/evals/notes.txt'), 'not a suite');
  writeFileSync(a('stray.md'), 'a file where folders go');
  mkdirSync(a('bad name'));
  writeFileSync(a('bad name/agent.md'), agent('Bad'));
  mkdirSync(a('no-agent-file/evals'), { recursive: true });
  writeFileSync(a('agent-3/evals/huge.yaml'), '');
  truncateSync(a('agent-3/evals/huge.yaml'), 3 * 1024 * 1024);
  mkdirSync(a('folder-for-file'));
  mkdirSync(a('folder-for-file/agent.md'));
  mkdirSync(a('fifo'));
  execFileSync('mkfifo', [a('fifo/agent.md')]);
  mkdirSync(join(root, 'webhooks'));
  writeFileSync(join(root, 'webhooks', 'alerts.yaml'), 'name: Alerts\nurl: ${vars.HOOK}/in\nevents: [call.ended]\n');
  symlinkSync(join(outside, 'agent.md'), join(root, 'webhooks', 'linked.yaml'));
  return root;
}

const vars = { HOOK: 'https://hooks.example.com' };

describe('the scan of a project', () => {
  it('names every odd thing where vap reads, follows no link and waits on no FIFO', async () => {
    const root = oddProject(12);
    const here = await scanProject(root, vars);
    const problems = Object.fromEntries(
      [...here.problems, ...here.files.filter((f) => 'problem' in f)].map((p) => [p.file, 'message' in p ? p.message : p.problem]),
    );
    expect(problems).toMatchObject({
      'agents/linked-folder': expect.stringMatching(/symbolic link/),
      'agents/linked-file/agent.md': expect.stringMatching(/symbolic link/),
      'agents/agent-2/evals/linked.yaml': expect.stringMatching(/symbolic link/),
      'agents/agent-2/evals/notes.txt': expect.stringMatching(/one <suite>\.yaml per eval suite/),
      'agents/stray.md': expect.stringMatching(/one folder per agent/),
      'agents/bad name': expect.stringMatching(/not a safe slug/),
      'agents/agent-3/evals/huge.yaml': expect.stringMatching(/3\.0 MiB, over vap's limit of 2\.0 MiB/),
      'agents/folder-for-file/agent.md': 'is not a file',
      'agents/fifo/agent.md': 'is not a file',
      'webhooks/linked.yaml': expect.stringMatching(/symbolic link/),
    });
    expect(problems).not.toHaveProperty('agents/no-agent-file');
    const read = new Map(here.files.flatMap((f) => ('text' in f ? [[f.file, f] as const] : [])));
    expect(read.get('agents/agent-0/agent.md')).toMatchObject({ form: { bom: true, crlf: false }, text: agent('With a BOM') });
    expect(read.get('agents/agent-1/agent.md')).toMatchObject({ form: { bom: false, crlf: true }, text: agent('CRLF') });
    expect(read.get('agents/agent-5/evals/smoke.yaml')).toMatchObject({ kind: 'suite', slug: 'smoke', agentSlug: 'agent-5' });
  });
});
