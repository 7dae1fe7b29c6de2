import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { GROUPS } from '../../src/commands/registry.js';
import { docsPages, GENERATED, HAND_WRITTEN } from '../../src/help/docs.js';
import { listTopics } from '../../src/help/topics.js';
import { ROOT } from '../helpers/built.js';

// docs/ is generated from the sources of the terminal's help (`npm run docs`): a page per help
// topic, a page per command group, the index. A page that differs from what its source makes
// now is stale, and fails here, as completions.test.ts does for the completion scripts.

let pages: Map<string, string>;
beforeAll(async () => {
  const io = { stdout: new PassThrough(), stderr: new PassThrough() };
  const program = await buildProgram([], io, () => Promise.reject(new Error('not run')), true);
  pages = docsPages(program, { root: ROOT });
});

const docs = (rel: string) => join(ROOT, 'docs', rel);

describe('docs/', () => {
  it('has a page per topic, per command group, and the index', () => {
    const want = [...listTopics().map((t) => `${t.name}.md`), ...GROUPS.map((g) => `commands/${g.name}.md`), 'README.md'];
    expect([...pages.keys()].sort()).toEqual(want.sort());
  });

  it('every generated page is as its source makes it now (run `npm run docs` after changing a topic or a command)', () => {
    const stale = [...pages].filter(([file, text]) => !existsSync(docs(file)) || readFileSync(docs(file), 'utf8') !== text).map(([file]) => file);
    expect(stale).toEqual([]);
  });

  it('holds no generated page without a source, and the pages written by hand are linked from the index', () => {
    for (const dir of ['', 'commands']) {
      for (const f of readdirSync(docs(dir)).filter((x) => x.endsWith('.md'))) {
        const rel = dir ? `${dir}/${f}` : f;
        if (readFileSync(docs(rel), 'utf8').startsWith(GENERATED)) expect(pages.has(rel), rel).toBe(true);
      }
    }
    for (const h of HAND_WRITTEN) {
      expect(existsSync(docs(h.file)), h.file).toBe(true);
      expect(pages.get('README.md')).toContain(`](${h.file})`);
    }
  });

  it('a topic page is the topic’s Markdown, and a group page holds every verb’s help with its examples', () => {
    const topic = listTopics()[0]!;
    expect(pages.get(`${topic.name}.md`)).toContain(
      readFileSync(join(ROOT, 'src/help/topics', `${topic.name}.md`), 'utf8')
        .split('\n---\n')[1]!
        .trim(),
    );
    const agents = pages.get('commands/agents.md')!;
    for (const verb of ['list', 'create', 'rollback', 'voice']) expect(agents).toContain(`## vap agents ${verb}\n\n\`\`\`text\nUsage: vap agents ${verb}`);
    expect(agents).toContain('  $ vap agents list');
    expect(agents).not.toContain('Global Options:');
  });

  it('every relative link of a page leads to a file of the repository', () => {
    for (const [file, text] of pages) {
      for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^https?:/.test(target)) continue;
        expect(existsSync(join(ROOT, 'docs', file, '..', target)), `${file}: ${target}`).toBe(true);
      }
    }
  });
});
