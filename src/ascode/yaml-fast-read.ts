import { emitYaml } from './yaml-emit.js';

/**
 * Fast path for reading the YAML vap writes (yaml-emit.ts): data read line by line is accepted only when emitYaml writes it back
 * as exactly this text; emitYaml matches the yaml package byte for byte and the package reads its output back as the same data
 * (tests hold both), so it is the package's reading. Anything else returns undefined, and the caller reads it with the package.
 */
export function readOwnYaml(text: string): Record<string, unknown> | undefined {
  if (!text.endsWith('\n') || text.includes('\r')) return undefined;
  const lines = text.split('\n');
  lines.pop();
  const data: Record<string, unknown> = {};
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0 || line.startsWith(' ')) return undefined;
    const key = line.slice(0, colon);
    if (key in data) return undefined;
    const rest = line.slice(colon + 1);
    i++;
    if (rest === '') {
      // A list (lines "  - ...") or a nested map (lines "  k: v").
      if (lines[i]?.startsWith('  - ')) {
        const list: unknown[] = [];
        while (lines[i]?.startsWith('  - ')) {
          const first = lines[i]!.slice(4);
          i++;
          const at = first.indexOf(': ');
          if (at < 0) {
            list.push(scalar(first));
            continue;
          }
          const item: Record<string, unknown> = {};
          if (!entry(item, first)) return undefined;
          while (lines[i]?.startsWith('    ') && lines[i]![4] !== ' ') {
            if (!entry(item, lines[i]!.slice(4))) return undefined;
            i++;
          }
          list.push(item);
        }
        data[key] = list;
      } else {
        const map: Record<string, unknown> = {};
        while (lines[i]?.startsWith('  ') && lines[i]![2] !== ' ') {
          if (!entry(map, lines[i]!.slice(2))) return undefined;
          i++;
        }
        data[key] = map;
      }
    } else if (rest === ' []') {
      data[key] = [];
    } else if (rest === ' {}') {
      data[key] = {};
    } else if (rest.startsWith(' ')) {
      data[key] = scalar(rest.slice(1));
    } else {
      return undefined;
    }
  }
  return emitYaml(data) === text ? data : undefined;
}

/** `key: value` into a flat map; false when the line is not one. */
function entry(into: Record<string, unknown>, line: string): boolean {
  const at = line.indexOf(': ');
  if (at <= 0) return false;
  const key = line.slice(0, at);
  if (key in into) return false;
  into[key] = scalar(line.slice(at + 2));
  return true;
}

const NUMBER = /^-?\d{1,15}(\.\d{1,15})?$/;

/** A plain scalar as the yaml package's core schema reads it (what emitYaml writes of one; anything else fails the check). */
function scalar(s: string): unknown {
  if (s === 'null') return null;
  if (s === 'true') return true;
  if (s === 'false') return false;
  if (NUMBER.test(s)) return Number(s);
  return s;
}
