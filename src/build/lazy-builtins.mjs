// An esbuild plugin that defers the Node built-ins that dependencies require at load for paths a
// CLI rarely takes (undici's node:http2 and node:http, Commander's node:child_process): loading
// them costs more than the rest of `vap agents list`. A patch that no longer matches fails the build.
import { readFile } from 'node:fs/promises';

/** RFC 9113 pseudo-header names and nghttp2 error codes, as node:http2 exports them. */
export const HTTP2_CONSTANTS = {
  HTTP2_HEADER_AUTHORITY: ':authority',
  HTTP2_HEADER_METHOD: ':method',
  HTTP2_HEADER_PATH: ':path',
  HTTP2_HEADER_SCHEME: ':scheme',
  HTTP2_HEADER_CONTENT_LENGTH: 'content-length',
  HTTP2_HEADER_EXPECT: 'expect',
  HTTP2_HEADER_STATUS: ':status',
  HTTP2_HEADER_PROTOCOL: ':protocol',
  NGHTTP2_REFUSED_STREAM: 7,
  NGHTTP2_CANCEL: 8,
};

const PATCHES = {
  'commander/lib/command.js': [
    [
      `const childProcess = require('node:child_process');`,
      `let childProcessModule;
const childProcess = { spawn: (...args) => (childProcessModule ??= require('node:child_process')).spawn(...args) };`,
    ],
  ],
  'undici/lib/dispatcher/client-h2.js': [
    [
      `let http2
try {
  http2 = require('node:http2')
} catch {
  // @ts-ignore
  http2 = { constants: {} }
}`,
      `let http2Module
const http2 = {
  constants: ${JSON.stringify(HTTP2_CONSTANTS)},
  connect (...args) { return (http2Module ??= require('node:http2')).connect(...args) }
}`,
    ],
  ],
  'undici/lib/dispatcher/client.js': [
    [`const http = require('node:http')`, `let httpModule`],
    [
      `const getDefaultNodeMaxHeaderSize = http &&
  http.maxHeaderSize &&
  Number.isInteger(http.maxHeaderSize) &&
  http.maxHeaderSize > 0
  ? () => http.maxHeaderSize
  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }`,
      `const getDefaultNodeMaxHeaderSize = () => {
  const size = (httpModule ??= require('node:http')).maxHeaderSize
  if (Number.isInteger(size) && size > 0) return size
  throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid')
}`,
    ],
  ],
  'undici/lib/core/util.js': [
    [`const { IncomingMessage } = require('node:http')`, `let IncomingMessage`],
    [
      `Object.getPrototypeOf(stream).constructor === IncomingMessage`,
      `Object.getPrototypeOf(stream).constructor === (IncomingMessage ??= require('node:http').IncomingMessage)`,
    ],
  ],
};

export function lazyBuiltins() {
  return {
    name: 'lazy-builtins',
    setup(build) {
      build.onLoad(
        {
          filter:
            /[\\/]node_modules[\\/](undici[\\/]lib[\\/](dispatcher[\\/]client-h2|dispatcher[\\/]client|core[\\/]util)|commander[\\/]lib[\\/]command)\.js$/,
        },
        async (args) => {
          const rel = args.path.replace(/\\/g, '/').split('/node_modules/').pop();
          let source = await readFile(args.path, 'utf8');
          for (const [from, to] of PATCHES[rel]) {
            if (!source.includes(from))
              throw new Error(`lazy-builtins: ${rel} no longer contains the code it patches; review the patch for this undici version`);
            source = source.replace(from, to);
          }
          return { contents: source, loader: 'js' };
        },
      );
    },
  };
}
