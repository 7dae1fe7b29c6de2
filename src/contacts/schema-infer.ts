import { createReadStream } from 'node:fs';
import { UsageError } from '../errors.js';
import { unescapeFormula } from './csv-write.js';
import { describeFsError } from '../fs-errors.js';
import type { FieldInput } from './schema-input.js';
import { checkHeaderWidth, csvError, csvParseOptions, InputError, isErrorsFileHeader, type LineEndings } from './source.js';
import { checkValue, isBlank, type FieldType } from '../spec/contact-validate.js';

/**
 * Schema inference from a sample of rows: a column gets a type only when every non-blank sampled
 * value has it, else `string`. Inferred fields are never required: a sample cannot prove later
 * rows fill a column, so the confirmation shows how full each one was.
 */

const BOOLEAN_WORDS = new Set(['true', 'false', 'yes', 'no']);
const PHONE_NAME = /phone|mobile|cell|tel\b|telephone|fax|msisdn/i;
const PHONE_LIKE = /^\+?[\d\s().-]+$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/**
 * `02134` is a code (zip, account), not a number: sending it as one would drop the
 * zero. Likewise a leading `+` (a phone that failed the phone check) and more than
 * 15 digits (an id a double cannot hold exactly) keep a column a string.
 */
const LEADING_ZERO = /^[+-]?0\d/;

export interface ColumnStats {
  name: string;
  type: FieldType;
  /** Sampled rows in which the column was not blank. */
  filled: number;
  sampled: number;
  /** The first non-blank value seen. */
  example?: string;
}

export interface InferredSchema {
  fields: FieldInput[];
  columns: ColumnStats[];
  /** Data rows read (not counting the header). */
  sampledRows: number;
  /** True when the file had more rows than were sampled. */
  truncated: boolean;
}

/** The type of a column from its sampled values (the header name is a hint for national phone numbers). */
export function inferType(values: readonly unknown[], name = ''): FieldType {
  const texts = values.filter((v) => !isBlank(v)).map((v) => String(v).trim());
  if (texts.length === 0) return 'string';
  const all = (pred: (s: string) => boolean) => texts.every(pred);
  if (all((s) => BOOLEAN_WORDS.has(s.toLowerCase()))) return 'boolean';
  if (all((s) => s.startsWith('+') && checkValue('phone', s).ok)) return 'phone';
  if (PHONE_NAME.test(name) && all((s) => PHONE_LIKE.test(s) && digitCount(s) >= 7 && digitCount(s) <= 15)) return 'phone';
  if (all((s) => s.includes('@') && checkValue('email', s).ok)) return 'email';
  if (all((s) => NUMBER.test(s) && !s.startsWith('+') && !LEADING_ZERO.test(s) && digitCount(s) <= 15)) return 'number';
  if (all((s) => /^\d{4}-\d{2}/.test(s) && checkValue('date', s).ok)) return 'date';
  return 'string';
}

function digitCount(s: string): number {
  return s.replace(/\D/g, '').length;
}

/** Infers a schema from a header row and sampled data rows. Refuses blank or repeated header names. */
export function inferSchema(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  opts: { truncated?: boolean; source?: string } = {},
): InferredSchema {
  const source = opts.source ?? 'the CSV file';
  const names = header.map((h) => h.trim());
  const seen = new Set<string>();
  names.forEach((n, i) => {
    if (!n) throw new UsageError(`column ${i + 1} of the header of ${source} has no name`, 'every column needs a name in the header row');
    if (seen.has(n)) throw new UsageError(`the header of ${source} names "${n}" twice`, 'field names must be unique');
    seen.add(n);
  });
  const columns: ColumnStats[] = names.map((name, i) => {
    const values = rows.map((r) => r[i]);
    const filled = values.filter((v) => !isBlank(v));
    return { name, type: inferType(values, name), filled: filled.length, sampled: rows.length, example: filled[0]?.trim() };
  });
  return {
    fields: columns.map((c) => ({ name: c.name, type: c.type })),
    columns,
    sampledRows: rows.length,
    truncated: Boolean(opts.truncated),
  };
}

/**
 * Reads the header and the first `sampleRows` rows with the importer's options and limits
 * (source.ts), so that a file `contacts import` refuses is refused here too, as fast and in as
 * little memory; csv-parse is loaded here to stay out of start-up.
 */
export async function readCsvSample(
  path: string,
  sampleRows: number,
  flag = '--from-csv',
  encoding = 'utf-8',
): Promise<{ header: string[]; rows: string[][]; truncated: boolean }> {
  const [{ parse }, { checkUtf8, decodingStream }] = await Promise.all([import('csv-parse'), import('./encoding.js')]);
  let lineEndings: LineEndings = 'mixed';
  if (encoding === 'utf-8') {
    try {
      lineEndings = await checkUtf8(path, csvParseOptions(','));
    } catch (err) {
      // A file that cannot be opened is said below, as before.
      if (err instanceof UsageError) throw err;
    }
  }
  const file = createReadStream(path);
  // One record more than wanted tells whether the file goes on.
  const parser = parse({ ...csvParseOptions(',', lineEndings), to: sampleRows + 2 });
  const records: string[][] = [];
  const fileError = new Promise<never>((_, reject) => file.once('error', reject));
  fileError.catch(() => undefined);
  try {
    if (encoding === 'utf-8') file.pipe(parser);
    else file.pipe(decodingStream(encoding)).pipe(parser);
    await Promise.race([
      (async () => {
        for await (const rec of parser as AsyncIterable<string[]>) {
          // The header's width is checked before any row is read after it.
          if (records.length === 0) checkHeaderWidth(rec);
          records.push(rec);
        }
      })(),
      fileError,
    ]);
  } catch (err) {
    // A limit passed (the header's width, a record's size): said as `contacts import` says it, with the fix.
    const limit =
      err instanceof InputError ? err : (err as { code?: unknown }).code === 'CSV_MAX_RECORD_SIZE' ? (csvError(err as Error) as InputError) : undefined;
    if (limit) throw new UsageError(`${flag} "${path}"${limit.line ? ` (near line ${limit.line})` : ''}: ${limit.message}`, limit.hint);
    const code = (err as NodeJS.ErrnoException).code;
    if (code && /^E[A-Z]+$/.test(code) && !code.startsWith('CSV')) throw new UsageError(`cannot read ${flag} "${path}": ${describeFsError(err)}`);
    throw new UsageError(`${flag} "${path}" is not valid CSV: ${(err as Error).message}`);
  } finally {
    file.unpipe(parser);
    file.destroy();
    parser.destroy();
  }
  const [header, ...rest] = isErrorsFileHeader(records[0] ?? []) ? records.map((r) => r.map(unescapeFormula)) : records;
  if (!header) throw new UsageError(`${flag} "${path}" is empty`, 'expected a header row of field names, then data rows');
  const truncated = rest.length > sampleRows;
  return { header, rows: truncated ? rest.slice(0, sampleRows) : rest, truncated };
}
