import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import * as nodeModule from 'node:module';
import { assertBuilt, bundleInputs, ROOT } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/run-cli.js';
import { GROUPS } from '../../src/commands/registry.js';
import { isSubgroup, type CommandEntry } from '../../src/commands/types.js';
import { stateDir } from '../../src/contacts/state.js';

const HEAVY =
  /node_modules\/(undici|@inquirer|csv-parse|ora|fastify|stream-json|libphonenumber-js|cli-table3|@modelcontextprotocol)\/|src\/emulator\/|src\/mcp\/|src\/api\/client\.ts|src\/contacts\/(?!validate)/;
const TRACE = fileURLToPath(new URL('../helpers/trace-loads.mjs', import.meta.url));

let emu: TestEmulator;
beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
  await emu.api('POST', '/api/v1/agents', { name: 'Front desk', instructions: 'Hi.', engine: 'realtime', variables: [] });
});
afterAll(async () => {
  await emu?.close();
});

/** The files of the package a command loaded (modules, and dist files it read), and every source input bundled into them. */
async function loaded(args: string[], env: Record<string, string> = {}): Promise<{ files: string[]; inputs: string[] }> {
  const file = join(mkdtempSync(join(tmpdir(), 'vap-trace-')), 'loads.txt');
  // stdin at its end: `vap mcp` serves until its client goes away.
  await execa('node', ['--import', TRACE, join(ROOT, 'bin/vap.js'), ...args], {
    env: { VAP_TRACE_FILE: file, NO_COLOR: '1', ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  const urls = readFileSync(file, 'utf8')
    .split('\n')
    .filter((u) => u.startsWith('file:'));
  const files = [...new Set(urls.map((u) => relative(ROOT, fileURLToPath(u))))].filter((p) => !p.startsWith('..'));
  const map = bundleInputs();
  const external = files.filter((p) => p.includes('node_modules/'));
  return { files, inputs: [...files.flatMap((d) => map.get(d) ?? []), ...external] };
}

const api = () => ({
  VAP_BASE_URL: emu.url,
  VAP_API_KEY: ORG_A.apiKey,
  VAP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vap-config-')),
  PATH: process.env.PATH ?? '',
});

describe('start-up loads only what it needs', () => {
  it('vap --version loads no HTTP client, prompts, CSV parser, spinner or emulator', async () => {
    const { inputs } = await loaded(['--version']);
    // bin/vap.js answers it from package.json: nothing of dist/ or node_modules is loaded.
    expect(inputs.filter((p) => HEAVY.test(p))).toEqual([]);
    expect(inputs.some((p) => p.includes('commander'))).toBe(false);
  });

  it('vap agents --help reads the stand-ins of the verbs, and loads no verb module', async () => {
    const { files, inputs } = await loaded(['agents', '--help']);
    expect(files).toContain('dist/verbs.json');
    expect(inputs).toContain('src/commands/agents/index.ts');
    expect(inputs.filter((p) => p.startsWith('src/commands/agents/') && !p.endsWith('index.ts'))).toEqual([]);
    expect(inputs.filter((p) => HEAVY.test(p) || p === 'src/context.ts')).toEqual([]);
  });

  it('vap contacts --help loads no CSV parser either', async () => {
    const { inputs } = await loaded(['contacts', '--help']);
    expect(inputs.filter((p) => HEAVY.test(p))).toEqual([]);
  });

  it('vap agents list --help builds that verb alone, without the context or the HTTP client', async () => {
    const { inputs } = await loaded(['agents', 'list', '--help']);
    expect(inputs.filter((p) => p.startsWith('src/commands/agents/'))).toEqual(['src/commands/agents/index.ts', 'src/commands/agents/list.ts']);
    expect(inputs.filter((p) => HEAVY.test(p) || p === 'src/context.ts')).toEqual([]);
  });

  it('vap agents list loads its verb, the core file (context, output, config, client) and undici, one file each', async () => {
    const { files, inputs } = await loaded(['agents', 'list'], api());
    expect(inputs.filter((p) => p.startsWith('src/commands/agents/'))).toEqual(['src/commands/agents/index.ts', 'src/commands/agents/list.ts']);
    const fileOf = (input: string) => files.filter((f) => bundleInputs().get(f)?.includes(input));
    expect(fileOf('src/context.ts')).toEqual(fileOf('src/api/client.ts'));
    expect(fileOf('src/context.ts')).toEqual(fileOf('src/ui/output.ts'));
    expect(fileOf('src/vendor/undici.ts')).toEqual(['dist/chunks/undici.js']);
    // bin/vap.js, dist/cli.js, the core file, the group's and the verb's files, undici; and on a Node
    // without a compile cache of its own (Node 20), vap's (bin/compile-cache.js), unless it is turned off.
    const cacheFile = 'enableCompileCache' in nodeModule ? [] : ['bin/compile-cache.js'];
    expect(files.filter((f) => f.startsWith('bin/'))).toEqual(['bin/vap.js', ...cacheFile]);
    expect(files.filter((f) => f.endsWith('.js'))).toHaveLength(6 + cacheFile.length);
    const off = await loaded(['agents', 'list'], { ...api(), NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(off.files.filter((f) => f.endsWith('.js'))).toHaveLength(6);
    expect(inputs.filter((p) => /node_modules\/(@inquirer|csv-parse|ora|fastify|cli-table3)\/|src\/emulator\//.test(p))).toEqual([]);
  });

  it('the help topics: read by the root help and `vap help <topic>` alone; the Markdown renderer only to print a topic', async () => {
    const topicFiles = (files: string[]) => files.filter((f) => f.startsWith('dist/topics/'));
    const renderer = (inputs: string[]) => inputs.filter((p) => p.includes('node_modules/marked/') || p === 'src/help/render.ts');
    for (const args of [['--version'], ['agents', '--help'], ['contacts', 'import', '--help'], ['agents', 'list']]) {
      const { files, inputs } = await loaded(args, args[1] === 'list' ? api() : {});
      expect(topicFiles(files), args.join(' ')).toEqual([]);
      expect(renderer(inputs), args.join(' ')).toEqual([]);
    }
    const root = await loaded(['--help']);
    expect(topicFiles(root.files).length).toBeGreaterThan(5);
    expect(renderer(root.inputs)).toEqual([]);
    const topic = await loaded(['help', 'formatting']);
    expect(topic.files).toContain('dist/topics/formatting.md');
    expect(renderer(topic.inputs).sort()).toEqual(['node_modules/marked/lib/marked.esm.js', 'src/help/render.ts']);
    expect(topic.inputs.filter((p) => HEAVY.test(p) || p === 'src/context.ts')).toEqual([]);
  });

  it('vap mcp --help (and vap help mcp) loads neither the MCP SDK nor the server, nor the context', async () => {
    for (const args of [
      ['mcp', '--help'],
      ['help', 'mcp'],
    ]) {
      const { files, inputs } = await loaded(args);
      // The command's help builds the group; the topic of its name is a page of the manual alone.
      if (args[0] === 'mcp') expect(inputs, args.join(' ')).toContain('src/commands/mcp/index.ts');
      else expect(files).toContain('dist/topics/mcp.txt');
      expect(
        inputs.filter((p) => HEAVY.test(p) || p === 'src/context.ts'),
        args.join(' '),
      ).toEqual([]);
    }
  });

  it('vap mcp config prints the configuration without the MCP SDK, the server or undici', async () => {
    const { inputs } = await loaded(['mcp', 'config', '--client', 'vscode'], api());
    expect(inputs).toContain('src/commands/mcp/config.ts');
    expect(inputs.filter((p) => /node_modules\/(@modelcontextprotocol|undici)\/|src\/mcp\//.test(p))).toEqual([]);
  });

  it('vap mcp loads the SDK and the server only when it serves', async () => {
    const { inputs } = await loaded(['mcp'], api());
    expect(inputs).toContain('src/mcp/server.ts');
    expect(inputs.some((p) => p.includes('node_modules/@modelcontextprotocol/sdk/'))).toBe(true);
    // Streamable HTTP (Express, Hono's adapter) is another file, for --http only.
    expect(inputs.filter((p) => /src\/mcp\/http\.ts|node_modules\/(express|@hono)\//.test(p))).toEqual([]);
  });

  it('undici is loaded only when a request is made', async () => {
    const { inputs } = await loaded(['agents', 'get', 'ag_1', '--bogus'], api());
    expect(inputs.filter((p) => p.includes('node_modules/undici/'))).toEqual([]);
  });

  it('dist/ names no absolute path: the package can be moved', () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.js') ? [join(dir, d.name)] : []));
    const offenders = walk(join(ROOT, 'dist')).filter((f) => readFileSync(f, 'utf8').includes(ROOT.replace(/\/$/, '')));
    expect(offenders).toEqual([]);
  });
});

/** Every group and subgroup path, and a mistyped verb in each. */
function groupPaths(): string[][] {
  const out: string[][] = [];
  const visit = (path: string[], entries: readonly CommandEntry[]) => {
    out.push(path);
    for (const e of entries) if (isSubgroup(e)) visit([...path, e.name], e.verbs);
  };
  for (const g of GROUPS) if (g.verbs) visit([g.name], g.verbs);
  return out;
}

describe('a group’s help and suggestions from the stand-ins of its verbs read as the real tree’s', () => {
  const built = (args: string[]) =>
    execa('node', [join(ROOT, 'bin/vap.js'), ...args], { env: { NO_COLOR: '1', PATH: process.env.PATH ?? '' }, extendEnv: false, reject: false });
  it.each(groupPaths().map((p) => [p.join(' '), p]))('vap %s', async (_name, path) => {
    // The sources have no dist/verbs.json: runCli builds the group's real verbs.
    for (const args of [
      [...path, '--help'],
      ['help', ...path],
      [...path, 'lisst'],
      ['help', ...path, 'crate'],
    ]) {
      const [stub, real] = await Promise.all([built(args), runCli(args)]);
      expect({ code: stub.exitCode, stdout: stub.stdout, stderr: stub.stderr }, args.join(' ')).toEqual({
        code: real.code,
        stdout: real.stdout.trimEnd(),
        stderr: real.stderr.trimEnd(),
      });
    }
  });
});

describe('the compile cache', () => {
  // Node 22.1 and later; this machine may have only Node 20 (VAP_TEST_NODE22 names another binary).
  const node22 = Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : process.env.VAP_TEST_NODE22;
  const run = (node: string, env: Record<string, string>) =>
    execa(node, [join(ROOT, 'bin/vap.js'), 'agents', '--help'], { env: { PATH: process.env.PATH ?? '', ...env }, extendEnv: false });

  it.skipIf(!node22)('is kept in vap’s state folder, and not under NODE_DISABLE_COMPILE_CACHE', async () => {
    const state = mkdtempSync(join(tmpdir(), 'vap-state-'));
    await run(node22!, { VAP_STATE_DIR: state, HOME: state });
    expect(readdirSync(join(state, 'compile-cache')).length).toBeGreaterThan(0);
    const off = mkdtempSync(join(tmpdir(), 'vap-state-'));
    await run(node22!, { VAP_STATE_DIR: off, HOME: off, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(existsSync(join(off, 'compile-cache'))).toBe(false);
  });

  it('without VAP_STATE_DIR, in the folder contacts import keeps its state in (Node’s own cache or vap’s)', async () => {
    const xdg = mkdtempSync(join(tmpdir(), 'vap-xdg-'));
    const home = mkdtempSync(join(tmpdir(), 'vap-home-'));
    await run(node22 ?? process.execPath, { XDG_STATE_HOME: xdg, HOME: home });
    const saved = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = xdg;
    try {
      expect(existsSync(join(dirname(stateDir({})), 'compile-cache'))).toBe(process.platform === 'linux');
    } finally {
      if (saved === undefined) delete process.env.XDG_STATE_HOME;
      else process.env.XDG_STATE_HOME = saved;
    }
  });
});
