import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN } from './built.js';
import { ORG_A, type TestEmulator } from './emulator.js';
import { testStateDir } from './state-dir.js';

export interface McpSession {
  client: Client;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** The official SDK's client, starting the built `vap mcp` over stdio against the emulator (its own config folder and HOME). */
export async function connectStdio(emu: TestEmulator, args: string[] = [], env: Record<string, string> = {}): Promise<McpSession> {
  const home = mkdtempSync(join(tmpdir(), 'vap-mcp-home-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: {
      HOME: home,
      PATH: process.env.PATH ?? '',
      NO_COLOR: '1',
      VAP_BASE_URL: emu.url,
      VAP_API_KEY: ORG_A.apiKey,
      VAP_CONFIG_DIR: join(home, 'config'),
      VAP_STATE_DIR: testStateDir(),
      ...env,
    },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const client = new Client({ name: 'vap-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => err,
    call: async (name, a = {}) => (await client.callTool({ name, arguments: a }, undefined, { timeout: 120_000 })) as CallToolResult,
    close: () => client.close(),
  };
}

/** A result's structured content (the envelope: dataNotice, data, nextCursor, cut, undo, notes). */
export function envelopeOf(r: CallToolResult): { dataNotice: string; data: any; nextCursor?: string; cut?: any; undo?: string; notes?: string[] } {
  if (r.isError) throw new Error(`tool error: ${textOf(r)}`);
  return r.structuredContent as any;
}

export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
