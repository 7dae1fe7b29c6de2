// Issue 10, point 4: one cause, one line.
import { describe, expect, it } from 'vitest';
import { causeOf, RowReporter, suggestFix } from '../../src/contacts/report.js';

const E164 = (v: string) => `"${v}" is not in E.164 form (+14155550100); pass --default-country to convert national numbers`;

function run(rows: Array<[number, string, string]>, fix?: Parameters<RowReporter['finish']>[1]): string[] {
  const lines: string[] = [];
  const r = new RowReporter((l) => lines.push(l));
  for (const [n, f, why] of rows) r.row(n, f, why);
  r.finish('leads.errors.csv', fix);
  return lines;
}

describe('row reporter: a cause shared by nearly every rejected row', () => {
  it('leaves the quoted value out of a cause', () => {
    expect(causeOf(E164('(415) 555-0100'))).toBe(causeOf(E164('020 7946 0958')));
    expect(causeOf('"a \\"b\\"" is not a number')).toBe('"…" is not a number');
  });

  it('every row the same: one line naming field and cause, the fix, three examples, and the count of the rest', () => {
    const rows = Array.from({ length: 60 }, (_, i) => [i + 1, 'phone', E164(`(415) 555-${String(i).padStart(4, '0')}`)] as [number, string, string]);
    const lines = run(rows, (d) => suggestFix(d, { listId: 'cl_1', type: 'phone', column: 'Mobile' }));
    expect(lines[0]).toBe(
      '60 of 60 rejected rows (100%) fail the same way: field phone: "…" is not in E.164 form (+14155550100); pass --default-country to convert national numbers',
    );
    expect(lines[1]).toMatch(/^likely fix: column "Mobile" holds national numbers without a country code: pass --default-country .*--map column=phone/);
    expect(lines.slice(2)).toEqual([
      'for example:',
      `row 1, field phone: ${E164('(415) 555-0000')}`,
      `row 2, field phone: ${E164('(415) 555-0001')}`,
      `row 3, field phone: ${E164('(415) 555-0002')}`,
      '… and 57 more, see leads.errors.csv',
    ]);
  });

  it('at the threshold: 9 of 10 rows share the cause (90%)', () => {
    const rows: Array<[number, string, string]> = Array.from({ length: 9 }, (_, i) => [i + 1, 'age', `"x${i}" is not a number`]);
    rows.push([10, 'email', '"nope" is not a valid e-mail address']);
    const lines = run(rows, (d) => suggestFix(d, { listId: 'cl_9', type: 'number', column: 'Age' }));
    expect(lines[0]).toBe('9 of 10 rejected rows (90%) fail the same way: field age: "…" is not a number');
    expect(lines[1]).toBe(
      'likely fix: check that column "Age" is the one meant for field age (--map column=age); if the data is right and the field\'s type (number) is not, change the field with `vap contact-lists update-schema cl_9`',
    );
  });

  it('below the threshold (8 of 10, or fewer than 10 rows): the row lines as before', () => {
    const mixed: Array<[number, string, string]> = Array.from({ length: 10 }, (_, i) => [i + 1, i < 8 ? 'age' : 'email', 'bad']);
    expect(run(mixed)).toEqual(mixed.map(([n, f]) => `row ${n}, field ${f}: bad`));
    const few: Array<[number, string, string]> = Array.from({ length: 9 }, (_, i) => [i + 1, 'age', 'bad']);
    expect(run(few)).toHaveLength(9);
  });

  it('counts rows, not errors: a row with two errors counts once per cause', () => {
    const rows: Array<[number, string, string]> = [];
    for (let i = 1; i <= 10; i++) {
      rows.push([i, 'phone', 'is required']);
      if (i % 2) rows.push([i, 'email', 'is required']);
    }
    const lines = run(rows, (d) => suggestFix(d, { listId: 'cl_2', type: 'phone', column: 'Tel' }));
    expect(lines[0]).toBe('10 of 10 rejected rows (100%) fail the same way: field phone: is required');
    expect(lines[1]).toMatch(/^likely fix: column "Tel" is empty in these rows: .*update-schema cl_2/);
  });
});
