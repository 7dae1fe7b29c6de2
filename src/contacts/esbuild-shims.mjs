// An esbuild plugin (src/build/bundle.mjs) that speeds up libphonenumber-js, isEmail and csv-parse
// without changing their answers (docs/performance.md). A rewrite applies only where its exact text
// is found, so a changed library is bundled unmodified, with a warning (test/unit/contacts-shims.test.ts).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/**
 * matchesEntirely compiles `new RegExp('^(?:' + re + ')$')` on every call: the shim caches it per
 * pattern (no `g` or `y` flag, so `test()` keeps no state) and remembers the last answer, a pure
 * function of the text and the pattern.
 */
export const MATCHES_ENTIRELY = `const cache = new Map();
let lastText, lastPattern, lastMatch;
export default function matchesEntirely(text, regularExpressionText) {
  text = text || '';
  // The same question twice in a row (a country whose fixed-line and mobile patterns are one) is answered once.
  if (text === lastText && regularExpressionText === lastPattern) return lastMatch;
  let re = cache.get(regularExpressionText);
  if (re === undefined) {
    re = new RegExp('^(?:' + regularExpressionText + ')$');
    if (cache.size < 4096) cache.set(regularExpressionText, re);
  }
  const match = re.test(text);
  lastText = text;
  lastPattern = regularExpressionText;
  lastMatch = match;
  return match;
}
`;

/** Babel's `_objectSpread` helper, as libphonenumber-js ships it (one line). */
const OBJECT_SPREAD_PREFIX =
  'function _objectSpread(e) { for (var r = 1; r < arguments.length; r++) { var t = null != arguments[r] ? arguments[r] : {}; r % 2 ? ownKeys(Object(t), !0).forEach(function (r) { _defineProperty(e, r, t[r]); })';

/**
 * The same copy through `Object.assign`, which V8 runs natively, only in a file whose every call
 * has one of the library's two shapes, for which the two are the same (why:
 * src/contacts/README.md); `__proto__` still goes through Babel's helper.
 */
const OBJECT_SPREAD_FAST = `function _objectSpread(e) { for (var r = 1; r < arguments.length; r++) { var t = arguments[r]; if (t == null) continue; if (Object.prototype.hasOwnProperty.call(t, '__proto__')) return _objectSpreadFrom(arguments, r); Object.assign(e, t); } return e; }
function _objectSpreadFrom(args, r) { var a = Array.prototype.slice.call(args); for (var j = 1; j < r; j++) a[j] = null; return _objectSpreadBabel.apply(null, a); }`;

/** Every call of the helper in a file, and the calls of the two shapes the library uses (`{}` at every even position). */
const CALL = /(?<!function )_objectSpread\(/g;
const SPACER_CALL = /_objectSpread\(_objectSpread\(\{\}, [\w$]+\), \{\}, \{/g; // (X, {}, {...}): `{}` at the even position
const TWO_ARG_CALL = /_objectSpread\(\{[^{}()]*\}, [\w$]+\)/g; // ({...}, X) and the inner ({}, X): no even position

function objectSpreadCallsAreSafe(text) {
  const calls = text.match(CALL)?.length ?? 0;
  const safe = (text.match(SPACER_CALL)?.length ?? 0) + (text.match(TWO_ARG_CALL)?.length ?? 0);
  return calls === safe;
}

/** parseIncompletePhoneNumber: a string of ASCII digits with an optional leading `+` is returned as is (what the loop would build). */
const PARSE_INCOMPLETE_HEAD = "export default function parseIncompletePhoneNumber(string) {\n  var result = '';";
const PARSE_INCOMPLETE_FAST =
  "const ASCII_DIGITS = /^\\+?[0-9]*$/;\nexport default function parseIncompletePhoneNumber(string) {\n  if (ASCII_DIGITS.test(string)) return string;\n  var result = '';";

/**
 * Babel's `_classCallCheck` is an `instanceof` in every constructor, megamorphic across the
 * library's classes; a direct `new Class()` answers it from the prototype, anything else still
 * uses `instanceof` (why the answers match: src/contacts/README.md).
 */
const CLASS_CALL_CHECK = 'function _classCallCheck(a, n) { if (!(a instanceof n)) throw new TypeError("Cannot call a class as a function"); }';
const CLASS_CALL_CHECK_FAST =
  'function _classCallCheck(a, n) { if (!(a != null && Object.getPrototypeOf(a) === n.prototype) && !(a instanceof n)) throw new TypeError("Cannot call a class as a function"); }';

/**
 * getNumberType is a pure function of the metadata, the plan and the national number, and a parse
 * then isValid() asks it the same question twice in a row: the shim remembers the last answer
 * (never a throw).
 */
const NUMBER_TYPE_HEAD = 'export default function getNumberType(input, options, metadataJson) {';
const NUMBER_TYPE_MEMO = `var lastTypeMetadata, lastTypePlan, lastTypeNumber, lastType;
export default function getNumberType(input, options, metadataJson) {
  var plan = input.country || input.countryCallingCode;
  var nationalNumber = options && options.v2 ? input.nationalNumber : input.phone;
  if (plan && typeof nationalNumber === 'string' && metadataJson === lastTypeMetadata && plan === lastTypePlan && nationalNumber === lastTypeNumber) return lastType;
  var type = getNumberTypeUncached(input, options, metadataJson);
  lastTypeMetadata = metadataJson;
  lastTypePlan = plan;
  lastTypeNumber = nationalNumber;
  lastType = type;
  return type;
}
function getNumberTypeUncached(input, options, metadataJson) {`;

/**
 * extractNationalNumberFromPossiblyIncompleteNumber compiles the national prefix
 * pattern on every call: cached per pattern, as matchesEntirely. It has no `g` or `y`
 * flag, so `exec()` and `replace()` keep no state in it between calls.
 */
const PREFIX_PATTERN = "var prefixPattern = new RegExp('^(?:' + metadata.numberingPlan.nationalPrefixForParsing() + ')');";
const PREFIX_PATTERN_CACHED = `var prefixPattern = nationalPrefixPattern(metadata.numberingPlan.nationalPrefixForParsing());`;
const PREFIX_PATTERN_CACHE = `var nationalPrefixPatterns = new Map();
function nationalPrefixPattern(source) {
  var re = nationalPrefixPatterns.get(source);
  if (re === undefined) {
    re = new RegExp('^(?:' + source + ')');
    if (nationalPrefixPatterns.size < 4096) nationalPrefixPatterns.set(source, re);
  }
  return re;
}
`;

/**
 * metadata.js compares the metadata's version with two semver strings for every Metadata or
 * NumberingPlan made (several per number): the shim remembers the outcome per metadata object
 * and version string, and sets the same flag the original sets.
 */
const SET_VERSION_STRING_BRANCH = `  } else {
    if (!version) {
      this.v1 = true;
    } else if (compare(version, V3) === -1) {
      this.v2 = true;
    } else if (compare(version, V4) === -1) {
      this.v3 = true;
    } else {
      this.v4 = true;
    }
  }
}`;
const SET_VERSION_STRING_CACHED = `  } else {
    var known = versionKinds.get(metadata);
    if (known === undefined || known.version !== version) {
      known = { version: version, kind: !version ? 1 : compare(version, V3) === -1 ? 2 : compare(version, V4) === -1 ? 3 : 4 };
      versionKinds.set(metadata, known);
    }
    if (known.kind === 1) this.v1 = true;
    else if (known.kind === 2) this.v2 = true;
    else if (known.kind === 3) this.v3 = true;
    else this.v4 = true;
  }
}
var versionKinds = new WeakMap();`;

/**
 * Three checks that scan with large Unicode patterns answer at once for `+` and ASCII digits,
 * the commonest input (why each answer is the library's: src/contacts/README.md).
 */
const VIABLE_HEAD = 'export default function isViablePhoneNumber(number) {';
const VIABLE_FAST = `var PLAIN_VIABLE_NUMBER = /^\\+?[0-9]{3,}$/;
export default function isViablePhoneNumber(number) {
  if (PLAIN_VIABLE_NUMBER.test(number)) return true;`;
const EXTENSION_HEAD = 'export default function extractExtension(number) {';
const EXTENSION_FAST = `var NO_EXTENSION_POSSIBLE = /^\\+?[0-9]*$/;
export default function extractExtension(number) {
  if (NO_EXTENSION_POSSIBLE.test(number)) return {};`;
const FORMATTED_START = '  var startsAt = text.search(PHONE_NUMBER_START_PATTERN);';
const FORMATTED_FAST = `  if (/^\\+?[0-9]+$/.test(text)) return text;
${FORMATTED_START}`;

/**
 * selectNumberingPlan makes a new NumberingPlan each time (several per number); a plan is never
 * changed once made and only looks up the same metadata JSON, so one per plan metadata is shared.
 */
const NEW_PLAN_BY_COUNTRY = 'this.numberingPlan = new NumberingPlan(countryMetadata, this);';
const NEW_PLAN_BY_CODE = 'this.numberingPlan = new NumberingPlan(this.getNumberingPlanMetadata(callingCode), this);';
const PLAN_CACHE = `var numberingPlans = new WeakMap();
function sharedNumberingPlan(planMetadata, metadata) {
  var plan = numberingPlans.get(planMetadata);
  if (plan === undefined || plan.globalMetadataObject.metadata !== metadata.metadata) {
    plan = new NumberingPlan(planMetadata, metadata);
    numberingPlans.set(planMetadata, plan);
  }
  return plan;
}`;

/**
 * parse.js gains vapCheckPlainNumber(text, defaultCountry, metadata): parse() then isValid() for
 * the two commonest shapes of number, undefined for anything else (why each step gives the
 * library's answer: src/contacts/README.md).
 */
const PARSE_HEAD = 'export default function parse(text, options, metadataJson) {';
const PLAIN_NUMBER_CHECK = `import vapIsValidNumber from './isValid.js';
var VAP_PLAIN_NUMBER = /^\\+[1-9][0-9]{2,16}$/;
var VAP_NATIONAL_NUMBER = /^[0-9(][0-9 ()\\-.]*[0-9]$/;
export function vapCheckPlainNumber(text, defaultCountry, metadataJson) {
  if (typeof text !== 'string') return undefined;
  var digits;
  if (VAP_PLAIN_NUMBER.test(text)) {
    digits = text;
  } else if (defaultCountry && text.length <= 40 && VAP_NATIONAL_NUMBER.test(text)) {
    digits = text.replace(/[^0-9]/g, '');
    if (digits.length < 7 || digits.length > 17) return undefined;
  } else {
    return undefined;
  }
  var metadata = new Metadata(metadataJson);
  if (defaultCountry && !metadata.hasCountry(defaultCountry)) return undefined;
  var parsed = parsePhoneNumber(digits, defaultCountry, undefined, metadata);
  if (!metadata.hasSelectedNumberingPlan()) return null;
  var nationalNumber = parsed.nationalNumber;
  if (!nationalNumber || nationalNumber.length < MIN_LENGTH_FOR_NSN || nationalNumber.length > MAX_LENGTH_FOR_NSN) return null;
  var input = { country: parsed.country, countryCallingCode: parsed.countryCallingCode, nationalNumber: nationalNumber };
  return { valid: vapIsValidNumber(input, { v2: true }, metadataJson), number: '+' + parsed.countryCallingCode + nationalNumber };
}
`;

/** The body of src/spec/phone-fast.ts in the bundle (paths are the library's files). */
function phoneFastModule(libRoot) {
  const file = (p) => JSON.stringify(`${libRoot}/${p}`);
  return `import metadata from ${file('metadata.min.json.js')};
import { vapCheckPlainNumber } from ${file('es6/parse.js')};
export const checkPlainNumber = (text, defaultCountry) => vapCheckPlainNumber(text, defaultCountry, metadata);
`;
}

/** Applies the rewrites to one file's text; returns the new text and which rewrites applied. */
export function rewriteLibphonenumber(path, text) {
  const applied = [];
  const norm = path.replace(/\\/g, '/');
  if (/\/helpers\/matchesEntirely\.js$/.test(norm)) {
    if (/new RegExp\('\^\(\?:' \+ regularExpressionText \+ '\)\$'\)\.test\(text\)/.test(text)) {
      return { text: MATCHES_ENTIRELY, applied: ['matchesEntirely'] };
    }
    return { text, applied };
  }
  let out = text;
  const line = out.split('\n').find((l) => l.startsWith(OBJECT_SPREAD_PREFIX));
  if (line && objectSpreadCallsAreSafe(out)) {
    out = out.replace(line, `${OBJECT_SPREAD_FAST}\n${line.replace('function _objectSpread(', 'function _objectSpreadBabel(')}`);
    applied.push('_objectSpread');
  }
  if (out.includes(CLASS_CALL_CHECK) && !/hasInstance/.test(out)) {
    out = out.replace(CLASS_CALL_CHECK, CLASS_CALL_CHECK_FAST);
    applied.push('_classCallCheck');
  }
  if (/\/parseIncompletePhoneNumber\.js$/.test(norm) && out.includes(PARSE_INCOMPLETE_HEAD)) {
    out = out.replace(PARSE_INCOMPLETE_HEAD, PARSE_INCOMPLETE_FAST);
    applied.push('parseIncompletePhoneNumber');
  }
  if (/\/helpers\/getNumberType\.js$/.test(norm) && out.split(NUMBER_TYPE_HEAD).length === 2) {
    out = out.replace(NUMBER_TYPE_HEAD, NUMBER_TYPE_MEMO);
    applied.push('getNumberType');
  }
  if (/\/helpers\/extractNationalNumberFromPossiblyIncompleteNumber\.js$/.test(norm) && out.split(PREFIX_PATTERN).length === 2) {
    out = `${PREFIX_PATTERN_CACHE}${out.replace(PREFIX_PATTERN, PREFIX_PATTERN_CACHED)}`;
    applied.push('nationalPrefixPattern');
  }
  if (/\/helpers\/isViablePhoneNumber\.js$/.test(norm) && out.split(VIABLE_HEAD).length === 2) {
    out = out.replace(VIABLE_HEAD, VIABLE_FAST);
    applied.push('isViablePhoneNumber');
  }
  if (/\/helpers\/extension\/extractExtension\.js$/.test(norm) && out.split(EXTENSION_HEAD).length === 2) {
    out = out.replace(EXTENSION_HEAD, EXTENSION_FAST);
    applied.push('extractExtension');
  }
  if (/\/es6\/parse\.js$/.test(norm) && out.split(FORMATTED_START).length === 2) {
    out = out.replace(FORMATTED_START, FORMATTED_FAST);
    applied.push('extractFormattedPhoneNumber');
  }
  if (
    /\/es6\/parse\.js$/.test(norm) &&
    applied.includes('extractFormattedPhoneNumber') &&
    out.split(PARSE_HEAD).length === 2 &&
    /^function parsePhoneNumber\(formattedPhoneNumber, defaultCountry, defaultCallingCode, metadata\) \{$/m.test(out) &&
    /import \{[^}]*MIN_LENGTH_FOR_NSN, MAX_LENGTH_FOR_NSN[^}]*\} from '.\/constants.js';/.test(out)
  ) {
    out = out.replace(PARSE_HEAD, `${PLAIN_NUMBER_CHECK}${PARSE_HEAD}`);
    applied.push('vapCheckPlainNumber');
  }
  if (/\/es6\/metadata\.js$/.test(norm) && out.split(NEW_PLAN_BY_COUNTRY).length === 2 && out.split(NEW_PLAN_BY_CODE).length === 2) {
    out = `${out.replace(NEW_PLAN_BY_COUNTRY, 'this.numberingPlan = sharedNumberingPlan(countryMetadata, this);').replace(NEW_PLAN_BY_CODE, 'this.numberingPlan = sharedNumberingPlan(this.getNumberingPlanMetadata(callingCode), this);')}\n${PLAN_CACHE}\n`;
    applied.push('sharedNumberingPlan');
  }
  if (/\/es6\/metadata\.js$/.test(norm) && out.split(SET_VERSION_STRING_BRANCH).length === 2 && !out.includes('versionKinds')) {
    out = out.replace(SET_VERSION_STRING_BRANCH, SET_VERSION_STRING_CACHED);
    applied.push('setVersion');
  }
  return { text: out, applied };
}

/**
 * isByteLength counts UTF-8 bytes with `encodeURI(str).split(…)`, a large share of isEmail's time.
 * For an ASCII string the count is its length (each character is itself or one `%XX`, and none
 * is a line terminator); other strings keep the original expression.
 */
const BYTE_LENGTH_EXPR = 'var len = encodeURI(str).split(/%..|./).length - 1;';
const BYTE_LENGTH_FAST = 'var len = /^[\\x00-\\x7f]*$/.test(str) ? str.length : encodeURI(str).split(/%..|./).length - 1;';

export function rewriteValidator(path, text) {
  const norm = path.replace(/\\/g, '/');
  if (/\/validator\/lib\/isByteLength\.js$/.test(norm) && text.includes(BYTE_LENGTH_EXPR)) {
    return { text: text.replace(BYTE_LENGTH_EXPR, BYTE_LENGTH_FAST), applied: ['isByteLength'] };
  }
  return { text, applied: [] };
}

/**
 * csv-parse makes each field's string through a Buffer view, one object per field for the
 * garbage collector; `buf.toString(encoding, 0, length)` decodes the same bytes the same way
 * without it.
 */
const FIELD_TO_STRING = 'return this.buf.slice(0, this.length).toString(encoding);';
const FIELD_TO_STRING_FAST = 'return this.buf.toString(encoding, 0, this.length);';

export function rewriteCsvParse(path, text) {
  const norm = path.replace(/\\/g, '/');
  if (/\/csv-parse\/lib\/utils\/ResizeableBuffer\.js$/.test(norm) && text.split(FIELD_TO_STRING).length === 2) {
    return { text: text.replace(FIELD_TO_STRING, FIELD_TO_STRING_FAST), applied: ['fieldToString'] };
  }
  return { text, applied: [] };
}

const EXPECTED = {
  'libphonenumber-js': [
    'matchesEntirely',
    '_objectSpread',
    '_classCallCheck',
    'parseIncompletePhoneNumber',
    'getNumberType',
    'nationalPrefixPattern',
    'setVersion',
    'isViablePhoneNumber',
    'extractExtension',
    'extractFormattedPhoneNumber',
    'sharedNumberingPlan',
    'vapCheckPlainNumber',
  ],
  validator: ['isByteLength'],
  'csv-parse': ['fieldToString'],
};

/** The esbuild plugin. */
export function dependencyShims() {
  return {
    name: 'vap-dependency-shims',
    setup(build) {
      const seen = new Set();
      build.onLoad({ filter: /[\\/]libphonenumber-js[\\/]es6[\\/].*\.js$/ }, async (args) => {
        const { text, applied } = rewriteLibphonenumber(args.path, await readFile(args.path, 'utf8'));
        for (const a of applied) seen.add(a);
        return { contents: text, loader: 'js' };
      });
      // The short phone check (phone-fast.ts): built from the library when its parse.js takes the rewrite, else left a stub.
      build.onLoad({ filter: /[\\/]src[\\/]spec[\\/]phone-fast\.ts$/ }, async (args) => {
        const require = createRequire(args.path);
        const libRoot = dirname(require.resolve('libphonenumber-js/package.json')).replace(/\\/g, '/');
        const parsePath = `${libRoot}/es6/parse.js`;
        if (!rewriteLibphonenumber(parsePath, await readFile(parsePath, 'utf8')).applied.includes('vapCheckPlainNumber')) return undefined;
        return { contents: phoneFastModule(libRoot), loader: 'js', resolveDir: dirname(args.path) };
      });
      build.onLoad({ filter: /[\\/]csv-parse[\\/]lib[\\/]utils[\\/]ResizeableBuffer\.js$/ }, async (args) => {
        const { text, applied } = rewriteCsvParse(args.path, await readFile(args.path, 'utf8'));
        for (const a of applied) seen.add(a);
        return { contents: text, loader: 'js' };
      });
      build.onLoad({ filter: /[\\/]validator[\\/]lib[\\/]isByteLength\.js$/ }, async (args) => {
        const { text, applied } = rewriteValidator(args.path, await readFile(args.path, 'utf8'));
        for (const a of applied) seen.add(a);
        return { contents: text, loader: 'js' };
      });
      build.onEnd((result) => {
        const inputs = result.metafile ? Object.keys(result.metafile.inputs) : undefined;
        for (const [pkg, wanted] of Object.entries(EXPECTED)) {
          if (inputs && !inputs.some((p) => p.includes(`node_modules/${pkg}/`))) continue;
          for (const want of wanted) {
            if (!seen.has(want)) {
              result.warnings.push({
                id: 'vap-dependency-shims',
                pluginName: 'vap-dependency-shims',
                text: `${pkg} shim "${want}" did not apply (the library changed?); bundled unmodified`,
                location: null,
                notes: [],
                detail: undefined,
              });
            }
          }
        }
      });
    },
  };
}
