// A webhook receiver for tests that only need deliveries to land somewhere: it answers
// every request 200 once its body is read, and keeps nothing.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HookSink {
  /** Where to deliver: http://127.0.0.1:<port>/hook. */
  url: string;
  close(): Promise<void>;
}

export async function startHookSink(): Promise<HookSink> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
