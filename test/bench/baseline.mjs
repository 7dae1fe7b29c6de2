// The build that benchmarks compare vap with: by default the commit before the start-up
// work (BASELINE_COMMIT: dispatch on the command path, CommonJS bundle, output in blocks),
// built once into a folder outside the repository and kept there between runs; or any
// built tree (a folder with bin/vap.js and dist/) named by `--baseline <dir>` or
// VAP_BENCH_BASELINE. Each benchmark says which it used.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The last commit before the start-up work (issue 18). */
export const BASELINE_COMMIT = '544bf22bdb8f6937f39950f8a2d04e22001bd97d';

/** The folder asked for on the command line or in the environment, if any. */
function asked() {
  const i = process.argv.indexOf('--baseline');
  return i > 0 ? process.argv[i + 1] : process.env.VAP_BENCH_BASELINE || undefined;
}

/**
 * The root of the baseline build (bin/vap.js inside) and a line saying what it is. Builds
 * BASELINE_COMMIT with its own bundle script (git archive of the commit, this checkout's
 * node_modules linked) the first time; reuses that build afterwards.
 */
export function baselineBuild() {
  const dir = asked();
  if (dir) {
    if (!existsSync(join(dir, 'bin/vap.js'))) throw new Error(`--baseline ${dir}: no bin/vap.js there (a built tree of vap is wanted)`);
    return { root: dir, what: `the build in ${dir} (--baseline / VAP_BENCH_BASELINE)` };
  }
  const root = join(tmpdir(), `vap-bench-baseline-${BASELINE_COMMIT.slice(0, 12)}`);
  const what = `commit ${BASELINE_COMMIT.slice(0, 12)} (before the start-up work), built in ${root}`;
  if (existsSync(join(root, '.built'))) return { root, what };
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const archive = spawnSync('git', ['-C', ROOT, 'archive', '--format=tar', BASELINE_COMMIT], { maxBuffer: 1 << 30 });
  if (archive.status !== 0)
    throw new Error(`cannot read commit ${BASELINE_COMMIT} (${String(archive.stderr).trim()}); pass --baseline <dir> with a built tree instead`);
  execFileSync('tar', ['-x', '-C', root], { input: archive.stdout });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  execFileSync(process.execPath, ['src/build/bundle.mjs'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  writeFileSync(join(root, '.built'), `${BASELINE_COMMIT}\n`);
  return { root, what };
}
