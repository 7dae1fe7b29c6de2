import { randomBytes } from 'node:crypto';
import { chmod, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CliError, UsageError } from '../errors.js';

/**
 * `--secret-file`: a temporary file beside the target is created (mode 0600) before
 * anything is sent, so that an unwritable path fails first; the secret is written and
 * renamed over the target only once the service has answered.
 */
export class SecretFile {
  private constructor(
    readonly path: string,
    private readonly tmp: string,
    private handle: FileHandle | undefined,
  ) {}

  static async prepare(path: string): Promise<SecretFile> {
    const existing = await stat(path).catch(() => undefined);
    if (existing?.isDirectory()) throw new UsageError(`--secret-file ${path} is a directory`, 'pass the path of a file');
    const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      return new SecretFile(path, tmp, await open(tmp, 'wx', 0o600));
    } catch (err) {
      throw new UsageError(`cannot write --secret-file ${path}: ${why(err)}`, 'pass a path in a directory you can write to');
    }
  }

  /** Writes the secret (and a newline). If only the final rename fails, the secret is left in the temporary file and the error says where. */
  async commit(secret: string): Promise<void> {
    try {
      await this.handle!.writeFile(`${secret}\n`);
      await this.handle!.sync();
      await this.handle!.close();
      this.handle = undefined;
      await chmod(this.tmp, 0o600);
    } catch (err) {
      await this.abort();
      throw new CliError(
        `cannot write the secret to ${this.path}: ${why(err)}`,
        undefined,
        'the new secret is lost; run `vap webhooks rotate-secret` with another --secret-file',
      );
    }
    try {
      await rename(this.tmp, this.path);
    } catch (err) {
      throw new CliError(`cannot move the secret into ${this.path}: ${why(err)}`, undefined, `it is in ${this.tmp} (mode 0600); move it yourself`);
    }
  }

  async abort(): Promise<void> {
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    await unlink(this.tmp).catch(() => undefined);
  }
}

function why(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'a parent is not a directory';
  return (err as Error).message ?? String(err);
}
