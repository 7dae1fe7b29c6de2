/**
 * A short way through libphonenumber-js for `+` and ASCII digits, with the same answers as
 * parsePhoneNumberFromString then isValid; built in by esbuild-shims.mjs, absent under the sources.
 * undefined: take the full path; null: no number (src/spec/README.md).
 */
export type PlainNumberCheck = (text: string, defaultCountry?: string) => { valid: boolean; number: string } | null | undefined;

export const checkPlainNumber: PlainNumberCheck | undefined = undefined;
