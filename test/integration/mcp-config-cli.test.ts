// `vap mcp config --client claude|cursor|vscode` prints the client's configuration on
// stdout (valid JSON, the server started as `vap mcp …`, the flags passed on) and where to
// put it on stderr; it writes no file and never holds the key.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const env = { VAP_API_KEY: 'key_secret_123', VAP_BASE_URL: 'http://127.0.0.1:9' };

describe('vap mcp config', () => {
  it('Claude Code: .mcp.json, or claude mcp add', async () => {
    const r = await runCli(['mcp', 'config', '--client', 'claude'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ mcpServers: { vap: { type: 'stdio', command: 'vap', args: ['mcp'] } } });
    expect(r.stderr).toContain('.mcp.json');
    expect(r.stderr).toContain('`claude mcp add vap -- vap mcp`');
    expect(r.stderr).toContain('read-only; add --allow-writes');
  });

  it('Cursor, with writes allowed and a profile', async () => {
    const r = await runCli(['--profile', 'staging', 'mcp', 'config', '--client', 'cursor', '--allow-writes'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ mcpServers: { vap: { command: 'vap', args: ['mcp', '--allow-writes', '--profile', 'staging'] } } });
    expect(r.stderr).toContain('.cursor/mcp.json');
  });

  it('VS Code, under another name', async () => {
    const r = await runCli(['mcp', 'config', '--client', 'vscode', '--name', 'voice-platform'], { env });
    expect(JSON.parse(r.stdout)).toEqual({ servers: { 'voice-platform': { type: 'stdio', command: 'vap', args: ['mcp'] } } });
    expect(r.stderr).toContain('.vscode/mcp.json');
  });

  it('never holds the key', async () => {
    for (const client of ['claude', 'cursor', 'vscode'])
      expect((await runCli(['mcp', 'config', '--client', client], { env })).stdout).not.toContain('key_secret_123');
  });

  it('a missing or unknown client is a usage error (exit 2)', async () => {
    const none = await runCli(['mcp', 'config'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("required option '--client <client>' not specified");
    const other = await runCli(['mcp', 'config', '--client', 'zed'], { env });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('Allowed choices are claude, cursor, vscode');
  });
});
