import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrlsIn } from '../../src/api/redact.js';
import { apiKeyProblem, baseUrlProblem, checkBaseUrl, numericSetting } from '../../src/config/resolve.js';
import { UsageError } from '../../src/errors.js';

describe('base URL check', () => {
  it('accepts http(s) URLs with a host and an optional path prefix', () => {
    for (const ok of [
      'http://127.0.0.1:4010',
      'https://api.example.com',
      'https://api.example.com/',
      'https://gw.example.com/vap',
      'http://user:pw@h:1',
      'http://[::1]:4010',
    ]) {
      expect(baseUrlProblem(ok), ok).toBeUndefined();
    }
  });

  it('names what is wrong, with the fix', () => {
    expect(baseUrlProblem('127.0.0.1:4010')?.problem).toBe(
      'has no scheme: a base URL starts with http:// or https:// (did you mean http://127.0.0.1:4010 or https://127.0.0.1:4010?)',
    );
    expect(baseUrlProblem('localhost:4010')?.problem).toMatch(/^has no scheme/);
    expect(baseUrlProblem('ftp://h')?.problem).toBe('has the scheme ftp: only http and https are supported');
    expect(baseUrlProblem('http://')?.problem).toBe('is not a valid URL');
    expect(baseUrlProblem('http://h/?a=1')?.problem).toMatch(/query or a fragment/);
    expect(baseUrlProblem('http://h\n.example')?.problem).toMatch(/white space or a control character/);
    expect(baseUrlProblem('https://api.example.com/api/v1')).toEqual({
      problem: 'ends in /api/v1, which vap adds to every path itself',
      hint: 'drop it: https://api.example.com',
    });
    expect(baseUrlProblem('https://api.example.com/gw/api/v1/')?.hint).toBe('drop it: https://api.example.com/gw');
    expect(baseUrlProblem('')?.problem).toBe('is empty');
  });

  it('a refusal is a usage error naming the source', () => {
    const err = (() => {
      try {
        checkBaseUrl('h:1', 'profile', 'prod', '/home/u/.config/vap/config.json');
      } catch (e) {
        return e as UsageError;
      }
    })()!;
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe(
      'the base URL "h:1" from base_url of profile "prod" in /home/u/.config/vap/config.json has no scheme: a base URL starts with http:// or https:// (did you mean http://h:1 or https://h:1?)',
    );
  });
});

describe('API key and numeric settings', () => {
  it('a key is visible ASCII only', () => {
    expect(apiKeyProblem('vap_live_AbC-123._~')).toBeUndefined();
    expect(apiKeyProblem('a b')).toMatch(/white space/);
    expect(apiKeyProblem('a\x1bb')).toMatch(/control character/);
    expect(apiKeyProblem('clé')).toMatch(/HTTP header/);
  });

  it('numbers are whole and in range; unset or empty is the default', () => {
    expect(numericSetting({}, 'VAP_TIMEOUT_MS')).toBeUndefined();
    expect(numericSetting({ VAP_TIMEOUT_MS: '' }, 'VAP_TIMEOUT_MS')).toBeUndefined();
    expect(numericSetting({ VAP_TIMEOUT_MS: ' 2500 ' }, 'VAP_TIMEOUT_MS')).toBe(2500);
    for (const bad of ['abc', '1.5', '-1', '0', '1e3', '99999999999999999999']) {
      expect(() => numericSetting({ VAP_TIMEOUT_MS: bad }, 'VAP_TIMEOUT_MS'), bad).toThrow(UsageError);
    }
    expect(numericSetting({ VAP_IMPORT_THREADS: '0' }, 'VAP_IMPORT_THREADS')).toBe(0);
    expect(() => numericSetting({ VAP_IMPORT_THREADS: 'no' }, 'VAP_IMPORT_THREADS')).toThrow(/VAP_IMPORT_THREADS \(environment\) is "no"/);
  });
});

describe('a password in a URL', () => {
  it('is shown as ***, the rest as written', () => {
    expect(redactUrl('http://ops:s3cret@127.0.0.1:4010')).toBe('http://ops:***@127.0.0.1:4010');
    expect(redactUrl('https://ops:s3cret@h/prefix/api/v1/agents?page=1')).toBe('https://ops:***@h/prefix/api/v1/agents?page=1');
    expect(redactUrl('https://h/x')).toBe('https://h/x');
    expect(redactUrl('https://user@h/')).toBe('https://user@h/');
    expect(redactUrlsIn('GET http://a:b@h/x failed; see https://c:d@k')).toBe('GET http://a:***@h/x failed; see https://c:***@k');
  });
});
