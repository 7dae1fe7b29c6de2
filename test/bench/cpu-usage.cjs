// Loaded with `node -r` by the benchmarks: on exit, writes the process's CPU time (user and
// system, every thread, in microseconds: process.cpuUsage) as JSON to $VAP_BENCH_CPU_FILE.
'use strict';

const file = process.env.VAP_BENCH_CPU_FILE;
if (file) process.on('exit', () => require('node:fs').writeFileSync(file, JSON.stringify(process.cpuUsage())));
