import { describe, expect, it } from 'vitest';
import { checkUrl, classifyAddress, guardedLookup, ipv6Groups, refusalFor, UrlRefused } from '../../src/emulator/contacts/url-guard.js';

const publicResolver = async () => [{ address: '93.184.216.34', family: 4 }];

describe('classifyAddress', () => {
  it.each([
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['::10.0.0.1', 'reserved'],
    ['not-an-ip', 'reserved'],
  ])('%s is %s', (addr, cls) => {
    expect(classifyAddress(addr)).toBe(cls);
  });

  it.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8'])('%s is public', (addr) => {
    expect(classifyAddress(addr)).toBe('public');
  });

  it('expands IPv6 groups', () => {
    expect(ipv6Groups('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(ipv6Groups('2001:db8::')).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]);
  });
});

describe('refusalFor with and without the loopback flag', () => {
  it('lets loopback through only with the flag', () => {
    expect(refusalFor('127.0.0.1', false)).toMatch(/loopback/);
    expect(refusalFor('127.0.0.1', true)).toBeUndefined();
    expect(refusalFor('::1', true)).toBeUndefined();
    expect(refusalFor('::ffff:127.0.0.1', true)).toBeUndefined();
  });
  it.each(['10.0.0.1', '169.254.169.254', '192.168.1.1', '100.64.0.1', '0.0.0.0', 'fe80::1', 'fc00::1', '224.0.0.1'])(
    'keeps %s refused with the flag',
    (addr) => {
      expect(refusalFor(addr, true)).toBeDefined();
    },
  );
});

describe('checkUrl', () => {
  const refused = async (url: string, allowLoopback = false, resolve = publicResolver) => {
    const err = await checkUrl(url, { allowLoopback, resolve }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, url).toBeInstanceOf(UrlRefused);
    return (err as Error).message;
  };

  it('refuses schemes other than http(s)', async () => {
    expect(await refused('file:///etc/passwd')).toMatch(/scheme "file"/);
    expect(await refused('ftp://example.com/x.csv')).toMatch(/scheme "ftp"/);
    expect(await refused('gopher://example.com/')).toMatch(/scheme/);
    expect(await refused('not a url')).toMatch(/not a valid/);
  });

  it('refuses private, link-local and loopback literals without the flag', async () => {
    expect(await refused('http://10.0.0.1/a.csv')).toMatch(/private/);
    expect(await refused('http://169.254.169.254/latest/meta-data')).toMatch(/link-local/);
    expect(await refused('https://192.168.1.1/')).toMatch(/private/);
    expect(await refused('http://[::1]:8080/')).toMatch(/loopback.*--allow-loopback-urls/);
    expect(await refused('http://127.0.0.1/')).toMatch(/loopback/);
    expect(await refused('http://localhost:3000/')).toMatch(/loopback/);
    expect(await refused('http://[::ffff:127.0.0.1]/')).toMatch(/loopback/);
    // Numeric forms the URL parser normalises.
    expect(await refused('http://2130706433/')).toMatch(/loopback/);
    expect(await refused('http://0x0a.0.0.1/')).toMatch(/private/);
  });

  it('allows loopback with the flag, and nothing else private', async () => {
    await expect(checkUrl('http://127.0.0.1:9/x.csv', { allowLoopback: true })).resolves.toBeInstanceOf(URL);
    await expect(checkUrl('http://[::1]:9/x.csv', { allowLoopback: true })).resolves.toBeInstanceOf(URL);
    await expect(checkUrl('http://localhost:9/x.csv', { allowLoopback: true })).resolves.toBeInstanceOf(URL);
    expect(await refused('http://10.0.0.1/', true)).toMatch(/private/);
    expect(await refused('http://169.254.169.254/', true)).toMatch(/link-local/);
    expect(await refused('http://192.168.1.1/', true)).toMatch(/private/);
    expect(await refused('http://[fe80::1]/', true)).toMatch(/link-local/);
    expect(await refused('http://0.0.0.0/', true)).toMatch(/unspecified/);
  });

  it('checks every address a name resolves to', async () => {
    await expect(checkUrl('https://files.example.com/a.csv', { allowLoopback: false, resolve: publicResolver })).resolves.toBeInstanceOf(URL);
    const mixed = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ];
    expect(await refused('https://files.example.com/a.csv', false, mixed)).toMatch(/resolves to 10\.1\.2\.3, a private address/);
    const v6ll = async () => [{ address: 'fe80::1', family: 6 }];
    expect(await refused('https://files.example.com/a.csv', true, v6ll)).toMatch(/link-local/);
    const fails = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    expect(await refused('https://nowhere.invalid/a.csv', false, fails)).toMatch(/does not resolve \(ENOTFOUND\)/);
  });
});

describe('guardedLookup (connect-time check)', () => {
  const look = (host: string, allow: boolean, all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
      guardedLookup(allow)(host, { all }, (err, address) => resolve({ err, address })),
    );

  it('refuses a name that resolves to loopback without the flag', async () => {
    const r = await look('localhost', false, false);
    expect(r.err?.code).toBe('ERR_URL_NOT_ALLOWED');
  });
  it('answers both lookup forms when allowed', async () => {
    const one = await look('localhost', true, false);
    expect(one.err).toBeNull();
    expect(typeof one.address).toBe('string');
    const all = await look('localhost', true, true);
    expect(all.err).toBeNull();
    expect(Array.isArray(all.address)).toBe(true);
  });
});
