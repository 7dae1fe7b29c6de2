// Loaded with `node -r` by the benchmarks: drops the V8 flags named in VAP_BENCH_DROP_FLAGS
// (comma-separated, e.g. `--liftoff-only,--semi-space-growth-factor`) from every
// v8.setFlagsFromString call, so that a benchmark can measure vap with and without a flag
// it sets, on the same build. Without the variable it passes every flag on. A benchmark
// loads it in both runs of a pair, so that its own cost is in both.
'use strict';

const v8 = require('node:v8');

const drop = (process.env.VAP_BENCH_DROP_FLAGS || '').split(',').filter(Boolean);
const set = v8.setFlagsFromString;
v8.setFlagsFromString = function setFlagsFromString(flags) {
  const kept = String(flags)
    .split(/\s+/)
    .filter((f) => f && !drop.some((d) => f === d || f.startsWith(`${d}=`)))
    .join(' ');
  if (kept) set.call(v8, kept);
};
