import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatField, mergeFields, parseFieldSpec, parseFieldSpecs, parseSchemaJson, readSchemaFile, toSchema } from '../../src/contacts/schema-input.js';
import { UsageError } from '../../src/errors.js';

function usage(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError');
}
const text = (e: UsageError) => `${e.message}; ${e.hint ?? ''}`;

describe('parseFieldSpec (--field name:type[:required])', () => {
  it.each([
    ['email:email', { name: 'email', type: 'email' }],
    ['phone:phone:required', { name: 'phone', type: 'phone', required: true }],
    ['age:number:optional', { name: 'age', type: 'number', required: false }],
    [' first name : STRING ', { name: 'first name', type: 'string' }],
    ['vip:boolean:REQUIRED', { name: 'vip', type: 'boolean', required: true }],
    ['born:date', { name: 'born', type: 'date' }],
  ])('parses %j', (spec, expected) => {
    expect(parseFieldSpec(spec)).toEqual(expected);
  });

  it.each(['name', ':string', 'a:string:maybe', 'a:', '', 'a:b:c:d', 'a::required'])('refuses %j, naming the flag and the form', (spec) => {
    const e = usage(() => parseFieldSpec(spec));
    expect(e.exitCode).toBe(2);
    expect(text(e)).toMatch(/--field/);
    expect(text(e)).toMatch(/name:type\[:required\]|valid types/);
  });

  it('lists the valid types for an unknown type', () => {
    const e = usage(() => parseFieldSpec('age:integer'));
    expect(text(e)).toContain('unknown field type "integer"');
    expect(text(e)).toContain('string, number, boolean, phone, email, date');
  });

  it('refuses a name given twice', () => {
    const e = usage(() => parseFieldSpecs(['a:string', 'b:number', 'a:email']));
    expect(e.message).toContain('"a" is given twice');
  });
});

describe('schema files', () => {
  it('accepts {fields: [...]} and a bare array', () => {
    const fields = [
      { name: 'a', type: 'string', required: true },
      { name: 'b', type: 'phone' },
    ];
    expect(parseSchemaJson(JSON.stringify({ fields }), 'f')).toEqual(fields);
    expect(parseSchemaJson(JSON.stringify(fields), 'f')).toEqual(fields);
  });

  it.each([
    ['not json', /not valid JSON/],
    ['{"x": 1}', /no field list/],
    ['[{"type": "string"}]', /no "name"/],
    ['[{"name": "a", "type": "int"}]', /unknown field type "int".*valid types: string, number/],
    ['[{"name": "a", "type": "string", "required": "yes"}]', /true or false/],
    ['[{"name": "a", "type": "string"}, {"name": "a", "type": "email"}]', /twice/],
  ])('refuses %s', (json, pattern) => {
    expect(text(usage(() => parseSchemaJson(json, 'schema.json')))).toMatch(pattern);
  });

  it('reads a file and names a missing one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-schema-'));
    writeFileSync(join(dir, 's.json'), '[{"name":"a","type":"number"}]');
    expect(await readSchemaFile(join(dir, 's.json'))).toEqual([{ name: 'a', type: 'number' }]);
    await expect(readSchemaFile(join(dir, 'missing.json'))).rejects.toThrow(/cannot read --schema-file .*no such file/);
  });
});

describe('merging and formatting', () => {
  it('overrides by name, keeps required when the override says nothing, appends new fields', () => {
    const merged = mergeFields(
      [
        { name: 'a', type: 'string', required: true },
        { name: 'b', type: 'string' },
      ],
      [
        { name: 'a', type: 'email' },
        { name: 'b', type: 'number', required: true },
        { name: 'c', type: 'date' },
      ],
    );
    expect(merged).toEqual([
      { name: 'a', type: 'email', required: true },
      { name: 'b', type: 'number', required: true },
      { name: 'c', type: 'date' },
    ]);
  });

  it('builds a schema with required only where true', () => {
    expect(
      toSchema([
        { name: 'a', type: 'string', required: false },
        { name: 'b', type: 'phone', required: true },
      ]),
    ).toEqual({
      fields: [
        { name: 'a', type: 'string' },
        { name: 'b', type: 'phone', required: true },
      ],
    });
    expect(formatField({ name: 'b', type: 'phone', required: true })).toBe('b:phone:required');
  });
});
