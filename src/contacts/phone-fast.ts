/**
 * A shorter way through libphonenumber-js for the commonest phone value, a plus and
 * ASCII digits (`+14155550100`): the same answers as
 * `parsePhoneNumberFromString(text, defaultCountry)` then `.isValid()` and `.number`,
 * without the layers such a text cannot need (argument normalising, RFC 3966 and
 * extension extraction, the PhoneNumber object).
 *
 * The library does not export the pieces this needs, so the implementation is put in
 * at build time by `esbuild-shims.mjs` (which adds the function to the library's
 * parse.js, next to the code it reuses). Here, under the TypeScript sources, it is
 * absent and callers take the full path. A unit test compares the built function with
 * the unmodified library on random numbers of every calling code.
 *
 * Returns undefined when the short way does not apply (the caller takes the full
 * path), null when the library would find no number at all, or the validity and the
 * E.164 form.
 */
export type PlainNumberCheck = (text: string, defaultCountry?: string) => { valid: boolean; number: string } | null | undefined;

export const checkPlainNumber: PlainNumberCheck | undefined = undefined;
