/** A Node 22 binary (see node22.mjs): `{ bin }`, or `{ why }` there is none. */
export function node22(asked?: string): { bin: string; why?: undefined } | { bin?: undefined; why: string };
