import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, ROOT } from '../helpers/built.js';

// Installable without the repository: the tarball `npm pack` makes (the GitHub Action's
// install path, action/install.sh) installed with `npm install -g` into an empty prefix, and
// run from there in a clean environment, far from the repository's node_modules: `vap
// --version`, `vap emulator start`, the completion scripts. Every dependency is bundled into
// dist/ (src/build/bundle.mjs), so the install brings none, and says nothing about engines;
// their licenses are in dist/THIRD_PARTY_NOTICES.txt. And the tarball holds what
// package.json's "files" says, and nothing more.

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
};
let tmp: string;
let prefix: string;
let tarball: string;
let files: string[];
/** What `npm install --global` printed (npm's warnings included). */
let installOutput: string;
/** The installed `vap`, its package folder, and an environment with nothing of the repository in it. */
let vapBin: string;
let installed: string;
let env: Record<string, string>;

beforeAll(async () => {
  assertBuilt();
  tmp = mkdtempSync(join(tmpdir(), 'vap-pack-'));
  prefix = join(tmp, 'prefix');
  const packed = await execa('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: ROOT });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(tmp, info!.filename);
  files = info!.files.map((f) => f.path).sort();
  // As a user installs it: npm's warnings shown (its default log level).
  const install = await execa('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], {
    cwd: tmp,
    timeout: 240_000,
    all: true,
  });
  installOutput = String(install.all);
  vapBin = join(prefix, 'bin', 'vap');
  installed = join(prefix, 'lib', 'node_modules', pkg.name);
  env = {
    PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: tmp,
    VAP_CONFIG_DIR: join(tmp, 'config'),
    VAP_STATE_DIR: join(tmp, 'state'),
    NO_COLOR: '1',
  };
}, 300_000);
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const run = (args: string[], opts: { input?: string } = {}) =>
  execa(vapBin, args, {
    cwd: tmp,
    env,
    extendEnv: false,
    reject: false,
    timeout: 30_000,
    ...(opts.input === undefined ? { stdin: 'ignore' as const } : { input: opts.input }),
  });

describe('the npm package, installed from its tarball into an empty prefix', () => {
  it('holds the launcher, the bundle, the completions, the README and package.json, and nothing else', () => {
    const top = [...new Set(files.map((f) => f.split('/')[0]))].sort();
    expect(top).toEqual(['README.md', 'bin', 'completions', 'dist', 'package.json']);
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/vap.js',
        'bin/compile-cache.js',
        'dist/cli.js',
        'dist/verbs.json',
        'dist/package.json',
        'dist/chunks/undici.js',
        'dist/contacts-worker.js',
        'completions/vap.bash',
        'completions/_vap',
        'completions/vap.fish',
      ]),
    );
    // The bundle's map of inputs is for tests and benches; sources, tests and the action are not in it.
    expect(files).not.toContain('dist/meta.json');
    expect(files.filter((f) => /^(src|test|action|docs)\//.test(f) || f.endsWith('.ts') || f.endsWith('.map'))).toEqual([]);
    // Every file the bundle loads is there: what dist/ has in the repository, less meta.json.
    const dist = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? dist(`${dir}/${d.name}`) : [`${dir}/${d.name}`]));
    expect(files.filter((f) => f.startsWith('dist/'))).toEqual(
      dist('dist')
        .filter((f) => f !== 'dist/meta.json')
        .sort(),
    );
  });

  it('installs no dependency (every one is bundled) and prints no engine warning on this Node', () => {
    expect(existsSync(vapBin)).toBe(true);
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(existsSync(join(installed, 'node_modules')) ? readdirSync(join(installed, 'node_modules')).filter((d) => !d.startsWith('.')) : []).toEqual([]);
    expect(installOutput).not.toMatch(/EBADENGINE|Unsupported engine/);
    expect(installOutput).toMatch(/added 1 package/);
  });

  it('ships the license of every bundled package (dist/THIRD_PARTY_NOTICES.txt)', () => {
    expect(files).toContain('dist/THIRD_PARTY_NOTICES.txt');
    const notices = readFileSync(join(installed, 'dist', 'THIRD_PARTY_NOTICES.txt'), 'utf8');
    // Every package whose files the build bundled (dist/meta.json, in the repository), by name and version, with its license text.
    const meta = JSON.parse(readFileSync(join(ROOT, 'dist', 'meta.json'), 'utf8')) as { inputs: Record<string, unknown> };
    const bundled = new Set<string>();
    for (const input of Object.keys(meta.inputs)) {
      const dir = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
      if (!dir) continue;
      const p = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (p.name) bundled.add(`${p.name} ${p.version}`);
    }
    expect(bundled.size).toBeGreaterThan(50);
    for (const id of ['fastify', 'undici', 'commander', 'zod'].map((n) => [...bundled].find((b) => b.startsWith(`${n} `))!)) expect(id).toBeDefined();
    for (const id of bundled) expect(notices, id).toContain(`\n${id}\nLicense: `);
    expect(notices).toContain('Permission is hereby granted, free of charge');
  });

  it("vap --version, and a command that loads the bundle's lazy chunks", async () => {
    const v = await run(['--version']);
    expect([v.exitCode, v.stdout, v.stderr]).toEqual([0, `vap ${pkg.version}`, '']);
    const help = await run(['agents', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Usage: vap agents');
    const webhook = await run(['webhooks', 'verify', '--secret', 'whsec_test', '--header', 't=1,v1=00', '--body-file', '-'], { input: '{}' });
    expect(webhook.exitCode).toBe(1);
    expect(webhook.stderr).toMatch(/^error: invalid signature/);
  });

  it('the manual: vap help lists the topics and prints each from the package (dist/topics)', async () => {
    const list = await run(['help']);
    expect(list.stdout).toMatch(/\nHelp topics:\n {2}vap help accessibility /);
    for (const topic of ['environment', 'formatting', 'mcp']) {
      const r = await run(['help', topic]);
      expect([r.exitCode, r.stderr], topic).toEqual([0, '']);
      expect(r.stdout.length, topic).toBeGreaterThan(500);
    }
  });

  it('vap emulator start --port 0: its first line names the URL, it answers, and it stops on SIGTERM', async () => {
    const child = execa(vapBin, ['emulator', 'start', '--port', '0'], { cwd: tmp, env, extendEnv: false, reject: false, stdin: 'ignore' });
    try {
      // Read line by line (the iterator keeps lines that arrive before they are asked for).
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
      const next = async () => {
        const r = await lines.next();
        if (r.done) throw new Error(`the emulator's output ended early: ${(await child).stderr}`);
        return r.value as string;
      };
      const first = await next();
      const url = /^vap emulator listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first)?.[1];
      expect(url, first).toBeDefined();
      const health = await fetch(`${url}/_emulator/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true });
      // The installed vap talks to it: the whole path of an API request, from the installed files.
      const keyLine = await next();
      const key = /key (\S+)$/.exec(keyLine)?.[1];
      expect(key, keyLine).toBeDefined();
      const agents = await execa(vapBin, ['agents', 'list', '--json'], {
        cwd: tmp,
        env: { ...env, VAP_BASE_URL: url!, VAP_API_KEY: key! },
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      });
      expect([agents.exitCode, agents.stderr]).toEqual([0, '']);
      expect(Array.isArray(JSON.parse(agents.stdout))).toBe(true);
      // A body through the bundled Fastify (its parser, the route, the envelope), and a refusal in its error envelope.
      const apiEnv = { ...env, VAP_BASE_URL: url!, VAP_API_KEY: key! };
      const created = await execa(vapBin, ['agents', 'create', '--name', 'Front desk', '--engine', 'realtime', '--instructions', 'Greet callers.', '-q'], {
        cwd: tmp,
        env: apiEnv,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      });
      expect([created.exitCode, created.stderr]).toEqual([0, '']);
      expect(created.stdout).toMatch(/^ag_\w+$/);
      const refused = await fetch(`${url}/api/v1/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"name":',
      });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: { code: 'invalid_body' } });
    } finally {
      child.kill('SIGTERM');
      const done = await child;
      expect(done.signal === 'SIGTERM' || done.exitCode === 0 || done.exitCode === 130 || done.exitCode === 143).toBe(true);
    }
  });

  it('the completion scripts: vap completion bash|zsh|fish print the files the package ships', async () => {
    for (const [shell, file] of [
      ['bash', 'vap.bash'],
      ['zsh', '_vap'],
      ['fish', 'vap.fish'],
    ] as const) {
      const r = await run(['completion', shell]);
      expect(r.exitCode, r.stderr).toBe(0);
      // execa drops the last newline of stdout.
      expect(`${r.stdout}\n`).toBe(readFileSync(join(installed, 'completions', file), 'utf8'));
    }
    const bash = await execa('bash', ['-c', `source "${join(installed, 'completions', 'vap.bash')}" && complete -p vap`], { reject: false, env });
    expect(bash.exitCode, bash.stderr).toBe(0);
    expect(bash.stdout).toContain('vap');
  });
});
