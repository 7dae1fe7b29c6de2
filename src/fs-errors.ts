/** Why a file could not be read, in the words of an error line: `cannot read --file x.csv: no such file`. */
export function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return (err as Error).message ?? String(err);
}
