import { describe, expect, it } from 'vitest';
import { refusalOf, urlProblem } from './addressPolicy.js';

describe('webhook address policy', () => {
  it('refuses every address inside a private network, and allows public ones', () => {
    const refused = [
      '127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.0.1', '100.64.0.1', '100.127.255.254',
      '169.254.169.254', '169.254.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1',
      '::1', '::', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:8.8.8.8', 'fd00::1', 'fc00::1', 'fe80::1', 'ff02::1',
      '64:ff9b::a00:1', '2002:a00:1::1', '2001:db8::1',
    ];
    for (const address of refused) expect(refusalOf(address), address).not.toBeNull();
    for (const address of ['8.8.8.8', '93.184.215.14', '100.63.255.255', '100.128.0.1', '172.32.0.1', '2606:4700::1111', '2a00:1450:4001::200e']) {
      expect(refusalOf(address), address).toBeNull();
    }
    expect(refusalOf('169.254.169.254')).toBe('169.254.169.254 is a link-local (cloud metadata) address');
  });

  it('needs https unless private addresses are allowed, and then takes http and loopback', () => {
    expect(urlProblem('http://hooks.example.com/', false)).toBe('Must be an https URL');
    expect(urlProblem('https://hooks.example.com/', false)).toBeNull();
    expect(urlProblem('http://127.0.0.1:9000/', true)).toBeNull();
    expect(urlProblem('https://[::ffff:7f00:1]/', false)).toMatch(/^Must not point into a private network: ::ffff:7f00:1 is a/);
  });
});
