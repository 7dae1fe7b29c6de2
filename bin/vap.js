#!/usr/bin/env node
// The `vap` executable: imports the built entry (dist/cli.js) and runs it.
// It is CommonJS (bin/package.json) so that `vap --version` is answered before
// Node's ESM loader starts, as fast as Node itself starts.
'use strict';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`vap ${require('../package.json').version}\n`);
} else {
  import('../dist/cli.js').then(async ({ main }) => {
    process.exitCode = await main(args);
  });
}
