import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export function hasTmux(): boolean {
  return spawnSync('tmux', ['-V']).status === 0;
}

/** A detached tmux session running one shell command in a real terminal. */
export class TmuxSession {
  readonly name = `vap-test-${randomBytes(4).toString('hex')}`;

  constructor(command: string, opts: { env?: Record<string, string>; width?: number; height?: number } = {}) {
    const exports = Object.entries(opts.env ?? {})
      .map(([k, v]) => `${k}=${shellQuote(v)}`)
      .join(' ');
    // A person at a terminal: CI is not set (vap never prompts under CI), unless the test sets it.
    // The pane stays open after the command ends, so that its last output can be read.
    const script = `unset CI; ${exports ? `export ${exports}; ` : ''}${command}; echo "[exit $?]"; sleep 600`;
    const args = [
      'new-session',
      '-d',
      '-s',
      this.name,
      '-x',
      String(opts.width ?? 120),
      '-y',
      String(opts.height ?? 40),
      'bash',
      '--norc',
      '--noprofile',
      '-c',
      script,
    ];
    // The tmux server exits when its last session is killed; a session started while it is
    // exiting fails with "server exited unexpectedly" (tests in parallel files do this). The
    // next attempt starts a fresh server.
    for (let attempt = 1; ; attempt++) {
      try {
        execFileSync('tmux', args, { stdio: ['ignore', 'ignore', 'pipe'] });
        return;
      } catch (err) {
        const stderr = String((err as { stderr?: Buffer }).stderr ?? '');
        if (attempt >= 5 || !/server exited unexpectedly|no server running|lost server/.test(stderr)) throw err;
        spawnSync('sleep', ['0.2']);
      }
    }
  }

  /** The screen and up to 100 lines of scrollback, wrapped lines joined. */
  capture(): string {
    return execFileSync('tmux', ['capture-pane', '-p', '-J', '-S', '-100', '-t', this.name], { encoding: 'utf8' });
  }

  /** The screen and scrollback with the escape codes of its colours and attributes (`capture-pane -e`). */
  captureWithEscapes(): string {
    return execFileSync('tmux', ['capture-pane', '-e', '-p', '-J', '-S', '-200', '-t', this.name], { encoding: 'utf8' });
  }

  /** The pane's title (an OSC 0 or 2 sequence written to the terminal sets it). */
  paneTitle(): string {
    return execFileSync('tmux', ['display-message', '-p', '-t', this.name, '#{pane_title}'], { encoding: 'utf8' }).replace(/\n$/, '');
  }

  sendKeys(...keys: string[]): void {
    execFileSync('tmux', ['send-keys', '-t', this.name, ...keys]);
  }

  /** Polls the screen until it matches (or throws with the screen after `timeoutMs`). */
  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = '';
    while (Date.now() < deadline) {
      screen = this.capture();
      if (pattern.test(screen)) return screen;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${pattern} on screen:\n${screen}`);
  }

  /** The exit code printed when the command ended. */
  async exitCode(timeoutMs = 15_000): Promise<number> {
    const screen = await this.waitFor(/\[exit \d+\]/, timeoutMs);
    return Number(/\[exit (\d+)\]/.exec(screen)![1]);
  }

  kill(): void {
    spawnSync('tmux', ['kill-session', '-t', this.name]);
  }
}

export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
