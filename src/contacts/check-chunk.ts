import type { CountryCode } from 'libphonenumber-js/min';
import { isBlank, nulByteReason, valueChecker, type Checked, type SchemaField } from '../spec/contact-validate.js';

/**
 * Validation of a chunk of rows: the same work whether it runs on the main thread
 * or in the validation worker (validate-worker.ts), so both give the same answers.
 */

/** What a checker needs to know, once per import (sent to the worker once). */
export interface CheckSpec {
  /** The schema fields that have a column, in the order of the values of a row. */
  fields: SchemaField[];
  defaultCountry?: string;
  /** Whether to return the normalised values of valid rows (not for a dry run). */
  wantValues: boolean;
}

/** A chunk: `n` rows, `values[r * F + f]` is row r's value for field f (F = spec.fields.length). */
export interface ChunkInput {
  n: number;
  values: ArrayLike<unknown>;
  /** Rows rejected as a whole before their values are looked at (a CSV row with another column count than the header, a JSON element that is not an object): [rowIndex, reason], ascending. */
  rowErrors?: Array<[number, string]>;
}

/** A phone (or other) value that was rewritten, e.g. `(415) 555-0100` → `+14155550100`. */
export type Normalisation = [rowIndex: number, field: string, from: string, to: string];

export interface ChunkResult {
  /** Indexes (in the chunk) of the rows rejected, ascending. */
  invalid: number[];
  /** Flat triples: rowIndex, field ('' for the row as a whole), reason; ascending by row. */
  errors: Array<number | string>;
  /** The normalised values of the valid rows, F per valid row, `undefined` for a blank optional value. */
  values?: unknown[];
  /** How many phone values were rewritten to E.164. */
  normalised: number;
  /** The first few of them. */
  examples: Normalisation[];
}

export const MAX_EXAMPLES = 5;

/** Builds the checker of a spec: a function from a chunk to its result. */
export function chunkChecker(spec: CheckSpec): (input: ChunkInput) => ChunkResult {
  const fields = spec.fields;
  const F = fields.length;
  const opts = { defaultCountry: spec.defaultCountry as CountryCode | undefined };
  const checkers = fields.map((f) => valueChecker(f.type, opts));
  const isString = fields.map((f) => f.type === 'string');
  const isPhone = fields.map((f) => f.type === 'phone');
  const required = fields.map((f) => Boolean(f.required));

  return (input) => {
    const { n, values } = input;
    const rowErrors = input.rowErrors ?? [];
    let nextRowError = 0;
    const invalid: number[] = [];
    const errors: Array<number | string> = [];
    const out: unknown[] | undefined = spec.wantValues ? [] : undefined;
    const examples: Normalisation[] = [];
    let normalised = 0;
    const rowValues: unknown[] = new Array(F);
    for (let r = 0; r < n; r++) {
      if (nextRowError < rowErrors.length && rowErrors[nextRowError]![0] === r) {
        invalid.push(r);
        errors.push(r, '', rowErrors[nextRowError]![1]);
        nextRowError++;
        continue;
      }
      let bad = false;
      const base = r * F;
      for (let f = 0; f < F; f++) {
        const raw = values[base + f];
        if (blank(raw)) {
          if (required[f]) {
            if (!bad) invalid.push(r);
            bad = true;
            errors.push(r, fields[f]!.name, 'is required');
          }
          rowValues[f] = undefined;
          continue;
        }
        const nul = nulByteReason(raw);
        if (nul !== undefined) {
          if (!bad) invalid.push(r);
          bad = true;
          errors.push(r, fields[f]!.name, nul);
          continue;
        }
        if (isString[f] && typeof raw === 'string') {
          rowValues[f] = raw;
          continue;
        }
        const c: Checked = checkers[f]!(raw);
        if (c.ok) {
          rowValues[f] = c.value;
          if (isPhone[f] && typeof raw === 'string' && c.value !== raw) {
            normalised++;
            if (examples.length < MAX_EXAMPLES) examples.push([r, fields[f]!.name, raw, c.value as string]);
          }
        } else {
          if (!bad) invalid.push(r);
          bad = true;
          errors.push(r, fields[f]!.name, c.reason);
        }
      }
      if (!bad && out) for (let f = 0; f < F; f++) out.push(rowValues[f]);
    }
    return { invalid, errors, values: out, normalised, examples };
  };
}

/** isBlank without trimming when the first character is plainly not white space (most values). */
function blank(raw: unknown): boolean {
  if (typeof raw === 'string') {
    if (raw.length === 0) return true;
    const c = raw.charCodeAt(0);
    if (c > 32 && c < 127) return false;
  }
  return isBlank(raw);
}
