import { createHash } from 'node:crypto';
import type { PhoneNumber } from './types.js';

const LABELS = ['Main line', 'Support line', 'Sales line'];

/** The organization's provisioned numbers: three, derived from the seed and the organization (never stored). */
export function phoneNumbersFor(seed: number, orgId: string): PhoneNumber[] {
  return LABELS.map((label, i) => {
    const d = createHash('sha256').update(`pn:${seed}:${orgId}:${i}`).digest();
    let id = '';
    for (let k = 0; k < 16; k++) id += (d[k]! % 36).toString(36);
    // +1 (area code 2xx-9xx) 555 01xx: a fictional-looking, valid E.164 number.
    const area = 200 + (d.readUInt16LE(16) % 800);
    const line = String(d.readUInt16LE(18) % 10000).padStart(4, '0');
    return { id: `pn_${id}`, phoneNumber: `+1${area}555${line}`, label };
  });
}
