// Loaded with `node -r` by test/bench/reports.mjs, in rounds of their own (never in the
// timed ones): where the time of one vap command goes. At exit it writes one JSON line to
// the file named by VAP_BENCH_PHASES:
//   start     from the process's start to its first request (Node, vap, the checks, undici)
//   requests  from the first request to the end of the last answer, less the parsing and
//             rendering done meanwhile (waiting for the server, reading the bodies)
//   parse     JSON.parse of the answers (all of it, wherever it falls)
//   render    the report builders (junitReport, jsonReport, markdownReport, htmlReport)
//   write     from the end of the last render to the exit (the files' writes that had not
//             finished, closing and renaming them, printing, the exit)
//   other     the rest (gates, verdicts, stdout without reports, ...)
//   gc        garbage collection, wherever it falls (already counted in the phases above)
// The phases add up to `total` (the process's own time, up to its exit handlers).
'use strict';

const { performance, PerformanceObserver } = require('node:perf_hooks');
const dc = require('node:diagnostics_channel');
const Module = require('node:module');
const { appendFileSync } = require('node:fs');

const out = process.env.VAP_BENCH_PHASES;
const now = () => performance.now();
let firstRequest;
let lastAnswer = 0;
const spans = { parse: [], render: [] };
let gc = 0;

dc.subscribe('undici:request:create', () => {
  firstRequest ??= now();
});
dc.subscribe('undici:request:trailers', () => {
  lastAnswer = now();
});

const parse = JSON.parse;
JSON.parse = function timedParse(...args) {
  const t = now();
  try {
    return parse.apply(this, args);
  } finally {
    spans.parse.push([t, now()]);
  }
};

// Each report builder, timed: the built chunk's exports are wrapped once it is loaded
// (Module.prototype.load, not _compile: on Node 20 vap's compile cache compiles dist/ itself).
const BUILDERS = ['junitReport', 'jsonReport', 'markdownReport', 'htmlReport'];
const load = Module.prototype.load;
Module.prototype.load = function timedLoad(filename) {
  const r = load.call(this, filename);
  if (/[\\/]report-(junit|json|markdown|html)-[^\\/]*\.js$/.test(filename)) {
    for (const name of BUILDERS) {
      const fn = this.exports[name];
      if (typeof fn !== 'function') continue;
      this.exports[name] = function timedBuilder(...args) {
        const t = now();
        try {
          return fn.apply(this, args);
        } finally {
          spans.render.push([t, now()]);
        }
      };
    }
  }
  return r;
};

const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gc += e.duration;
});
gcObserver.observe({ entryTypes: ['gc'] });

const sum = (xs) => xs.reduce((a, [s, e]) => a + (e - s), 0);
const within = (xs, from, to) => xs.reduce((a, [s, e]) => a + Math.max(0, Math.min(e, to) - Math.max(s, from)), 0);

process.on('exit', () => {
  if (!out) return;
  const total = now();
  for (const e of gcObserver.takeRecords()) gc += e.duration;
  const start = firstRequest ?? total;
  const answered = Math.max(lastAnswer, start);
  const parseMs = sum(spans.parse);
  const renderMs = sum(spans.render);
  const busy = within(spans.parse, start, answered) + within(spans.render, start, answered);
  const requests = answered - start - busy;
  const lastRender = spans.render.length ? Math.max(...spans.render.map(([, e]) => e)) : total;
  const write = spans.render.length ? total - lastRender : 0;
  const other = total - start - requests - parseMs - renderMs - write;
  appendFileSync(out, `${JSON.stringify({ total, start, requests, parse: parseMs, render: renderMs, write, other, gc })}\n`);
});
