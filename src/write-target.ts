import { randomBytes } from 'node:crypto';
import { rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

const code = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code;

/**
 * Whether a file can be written at `path`, checked before anything is sent (else `refuse(why)`):
 * not a folder, and its nearest existing folder writable, probed by creating a file so that a
 * read-only mount is caught for root too. Shared by `--report` and `--errors-file`.
 */
export async function checkWriteTarget(path: string, refuse: (why: string) => Error): Promise<void> {
  const target = resolve(path);
  const st = await stat(target).catch(() => undefined);
  if (st?.isDirectory()) throw refuse('it is a folder');
  let dir = dirname(target);
  for (;;) {
    const d = await stat(dir).catch((err: unknown) => (code(err) === 'ENOENT' || code(err) === 'ENOTDIR' ? null : undefined));
    if (d === null) {
      const up = dirname(dir);
      if (up === dir) throw refuse(`the folder ${dir} does not exist`);
      dir = up;
      continue;
    }
    if (d === undefined || !d.isDirectory()) throw refuse(`${dir} is not a folder`);
    break;
  }
  const probe = join(dir, `.vap-write-check-${randomBytes(4).toString('hex')}`);
  try {
    await writeFile(probe, '', { flag: 'wx' });
  } catch (err) {
    throw refuse(`the folder ${dir} is not writable${code(err) && code(err) !== 'EACCES' ? ` (${code(err)})` : ''}`);
  }
  await rm(probe, { force: true });
}
