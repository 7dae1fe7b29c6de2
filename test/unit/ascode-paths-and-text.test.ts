// The pieces under agents as code that keep a repository safe: slugs as one safe path
// segment, the confined file operations, the text forms kept (BOM, CRLF), the escape of
// `${` in fields that take variables, and the quoting of YAML 1.1 look-alikes.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ProjectFs, slugProblem } from '../../src/ascode/paths.js';
import { inForm, normalise } from '../../src/ascode/text-form.js';
import { escapeVars, expandVars, templateFor, yaml11Ambiguous } from '../../src/ascode/yaml-doc.js';
import { agentMarkdown } from '../../src/ascode/write.js';

describe('slugs', () => {
  it('accept one safe segment and refuse everything else, with the reason', () => {
    for (const ok of ['front-desk', 'a', 'Desk_2', 'v1.2', 'x'.repeat(100)]) expect(slugProblem(ok), ok).toBeUndefined();
    const bad: Array<[string, RegExp]> = [
      ['', /empty/],
      ['.', /names a folder itself/],
      ['..', /names a folder itself/],
      ['../x', /path separator/],
      ['a\\b', /path separator/],
      ['a\u0000b', /control character/],
      ['a\u202eb', /control character/],
      ['.hidden', /start with a letter or digit/],
      ['-x', /start with a letter or digit/],
      ['a b', /letters, digits/],
      ['x'.repeat(101), /101 characters long/],
      ['trail.', /ends with "\."/],
      ['con', /device name/],
      ['AUX', /device name/],
      ['com1', /device name/],
      ['lpt9.yaml', /device name/],
      ['nul.txt', /device name/],
    ];
    for (const [s, why] of bad) expect(slugProblem(s), JSON.stringify(s)).toMatch(why);
  });

  it('accept exactly what the rules accept, whatever the string (the common slug answered first included)', () => {
    // The rules as written above, one by one.
    const rules = (s: string) =>
      s !== '' &&
      s.length <= 100 &&
      s !== '.' &&
      s !== '..' &&
      !/[/\\\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(s) &&
      /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(s) &&
      !s.endsWith('.') &&
      !/^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i.test(s);
    const chars = fc.constantFrom(...'aZ09_-.c o n u l p t x1²/\\'.split(''));
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: chars, maxLength: 8 }), fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,110}$/)),
        (s) => (slugProblem(s) === undefined) === rules(s),
      ),
      { numRuns: 3000 },
    );
  });
});

describe('ProjectFs', () => {
  const make = () => {
    const sandbox = mkdtempSync(join(tmpdir(), 'vap-fs-'));
    mkdirSync(join(sandbox, 'project'));
    mkdirSync(join(sandbox, 'outside'));
    return { sandbox, fs: new ProjectFs(join(sandbox, 'project')) };
  };

  it('refuses paths that leave the project', () => {
    const { fs } = make();
    for (const p of ['../x', 'agents/../../x', '/etc/passwd', '.']) expect(() => fs.resolve(p), p).toThrow(/outside the project/);
    expect(fs.resolve('agents/a/agent.md')).toBe(join(fs.root, 'agents', 'a', 'agent.md'));
  });

  it('never writes through a link, at any component', async () => {
    const { sandbox, fs } = make();
    symlinkSync(join(sandbox, 'outside'), join(fs.root, 'agents'));
    await expect(fs.writeText('agents/a/agent.md', 'x')).rejects.toThrow('agents is a symbolic link');
    expect(readdirSync(join(sandbox, 'outside'))).toEqual([]);
  });

  it('replaces a link at the target instead of following it', async () => {
    const { sandbox, fs } = make();
    writeFileSync(join(sandbox, 'outside', 'victim'), 'victim\n');
    mkdirSync(join(fs.root, 'webhooks'));
    symlinkSync(join(sandbox, 'outside', 'victim'), join(fs.root, 'webhooks', 'x.yaml'));
    await expect(fs.writeText('webhooks/x.yaml', 'mine\n')).rejects.toThrow('webhooks/x.yaml is a symbolic link');
    expect(readFileSync(join(sandbox, 'outside', 'victim'), 'utf8')).toBe('victim\n');
  });

  it("removes a file only while it is vap's, and a folder only when it is empty", async () => {
    const { fs } = make();
    await fs.writeText('agents/a/agent.md', 'vap wrote this\n');
    await fs.writeText('agents/a/NOTES.md', 'mine\n');
    expect(await fs.removeOwnFile('agents/a/agent.md', (t) => t === 'something else')).toBe('changed');
    expect(await fs.removeOwnFile('agents/a/agent.md', (t) => t === 'vap wrote this\n')).toBe('removed');
    expect(await fs.removeOwnFile('agents/a/agent.md', () => true)).toBe('missing');
    expect(await fs.removeEmptyDirs('agents/a/evals', 'agents')).toEqual({ dir: 'agents/a', holds: ['NOTES.md'] });
    expect(existsSync(join(fs.root, 'agents', 'a', 'NOTES.md'))).toBe(true);
    expect(await fs.removeOwnFile('agents/a/NOTES.md', () => true)).toBe('removed');
    expect(await fs.removeEmptyDirs('agents/a/evals', 'agents')).toBeUndefined();
    expect(existsSync(join(fs.root, 'agents', 'a'))).toBe(false);
    expect(existsSync(join(fs.root, 'agents'))).toBe(true);
  });
});

describe('text forms', () => {
  it('a BOM and CRLF line endings are taken off for reading and put back for writing', () => {
    for (const raw of ['a\nb\n', '\ufeffa\nb\n', 'a\r\nb\r\n', '\ufeffa\r\nb\r\n', 'x', '', 'a\r\nb\n', 'a\rb\n']) {
      const { text, form } = normalise(raw);
      expect(text.startsWith('\ufeff')).toBe(false);
      expect(inForm(text, form), JSON.stringify(raw)).toBe(raw);
    }
    expect(normalise('a\r\nb\r\n').text).toBe('a\nb\n');
    // A file with LF endings keeps a CRLF that is part of its text (instructions byte for byte).
    expect(normalise('---\nname: x\n---\nline one\r\nline two\n').text).toBe('---\nname: x\n---\nline one\r\nline two\n');
  });

  it('any text round-trips through a rewrite in its own form', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\n', '\r', '\r\n', 'é', '\ufeff') }), fc.boolean(), fc.boolean(), (body, bom, crlf) => {
        const text = body.replace(/^\ufeff/, '');
        const raw = inForm(text, { bom, crlf });
        const back = normalise(raw);
        expect(inForm(back.text, back.form)).toBe(raw);
      }),
    );
  });
});

describe('variables in fields that take them', () => {
  it('any platform text, escaped, reads back as itself whatever the vars', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('$', '{', '}', 'vars.', 'X', 'a', '$${') }),
        fc.dictionary(fc.constantFrom('X', 'Y'), fc.string()),
        (text, vars) => {
          expect(expandVars(escapeVars(text), vars)).toBe(text);
          expect(expandVars(templateFor(text, vars), vars)).toBe(text);
        },
      ),
    );
    expect(escapeVars('https://x/${vars.TOKEN}')).toBe('https://x/$${vars.TOKEN}');
    expect(expandVars('${vars.HOOK}/a', { HOOK: 'https://h' })).toBe('https://h/a');
    expect(templateFor('https://h', { HOOK: 'https://h' })).toBe('${vars.HOOK}');
  });

  it('agent text is never expanded: a ${vars.X} in a name is written as it is', () => {
    const md = agentMarkdown(
      { name: 'Desk ${vars.X}', engine: 'speech-to-speech', voice: null, tools: [], variables: [], description: '', tags: [], instructions: 'Say ${vars.X}' },
      undefined,
      { X: 'secret' },
    );
    expect(md).toContain('name: Desk ${vars.X}\n');
    expect(md).not.toContain('secret');
  });
});

describe('YAML 1.1 look-alikes', () => {
  it('are recognised, and written quoted so a YAML 1.1 reader keeps them strings', () => {
    for (const s of ['yes', 'No', 'ON', 'off', 'y', '~', 'null', '2001-01-01', '2001-1-1 10:00:00', '0777', '1_000', '1:20', '.inf', '<<', '='])
      expect(yaml11Ambiguous(s), s).toBe(true);
    for (const s of ['front desk', 'yesterday', 'Lucía', '2001-01-01x', 'v1']) expect(yaml11Ambiguous(s), s).toBe(false);
    const md = agentMarkdown(
      { name: 'off', engine: 'speech-to-speech', voice: null, tools: ['yes'], variables: [], description: '', tags: ['2001-01-01'], instructions: 'x' },
      undefined,
      {},
    );
    const front = md.split('---\n')[1]!;
    expect(front).toContain('name: "off"');
    expect(front).toContain('- "yes"');
    expect(front).toContain('- "2001-01-01"');
    expect(parse(front)).toMatchObject({ name: 'off', tools: ['yes'], tags: ['2001-01-01'] });
  });
});
