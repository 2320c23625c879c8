import { describe, expect, it } from 'vitest';
import { addressPolicy, refusedRange, urlProblem } from './addressPolicy.js';

const production = { allowPrivate: false, allowLoopback: false };
const privateAllowed = { allowPrivate: true, allowLoopback: false };
const devTestMode = addressPolicy({ allowPrivate: false, testLoopback: true }, { livemode: false });

describe('webhook address policy', () => {
  it('refuses every address inside a private network, and allows public ones', () => {
    const refused = [
      '127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.0.1', '100.64.0.1', '100.127.255.254',
      '169.254.169.254', '169.254.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1',
      '::1', '::', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:8.8.8.8', 'fd00::1', 'fc00::1', 'fe80::1', 'ff02::1',
      '64:ff9b::a00:1', '2002:a00:1::1', '2001:db8::1',
    ];
    for (const address of refused) expect(refusedRange(address), address).not.toBeNull();
    for (const address of ['8.8.8.8', '93.184.215.14', '100.63.255.255', '100.128.0.1', '172.32.0.1', '2606:4700::1111', '2a00:1450:4001::200e']) {
      expect(refusedRange(address), address).toBeNull();
    }
    expect(refusedRange('169.254.169.254')).toBe('link-local (cloud metadata)');
  });

  it('needs https unless private addresses are allowed, and then takes http and loopback', () => {
    expect(urlProblem('http://hooks.example.com/', production)).toBe('Must be an https URL');
    expect(urlProblem('https://hooks.example.com/', production)).toBeNull();
    expect(urlProblem('http://127.0.0.1:9000/', privateAllowed)).toBeNull();
    expect(urlProblem('https://[::ffff:7f00:1]/', production)).toMatch(/^Must not point into a private network: ::ffff:7f00:1 is a/);
  });

  it('refuses every spelling of a local host: trailing dots, case, brackets, short and numeric IPv4 forms', () => {
    const local = [
      'https://localhost./',
      'https://LOCALHOST../',
      'https://LocalHost/',
      'https://api.localhost./',
      'https://intranet./',
      'https://local%68ost/',
      'https://127.1/',
      'https://0x7f.1/',
      'https://0177.0.0.1/',
      'https://2130706433./',
      'https://127.0.0.1./',
      'https://[0:0:0:0:0:0:0:1]/',
      'https://[::1]/',
    ];
    for (const url of local) expect(urlProblem(url, production), url).not.toBeNull();
    expect(urlProblem('https://localhost./', production)).toBe('Must be a public host name');
    expect(urlProblem('https://0x7f.1/', production)).toBe('Must not point into a private network: 127.0.0.1 is a loopback address');
    expect(urlProblem('https://Hooks.Example.COM./in', production)).toBeNull();
  });

  it('under npm run dev, lets a test-mode endpoint use http on loopback only; never a live one', () => {
    for (const url of ['http://127.0.0.1:4000/', 'http://localhost:4000/', 'http://LOCALHOST.:4000/', 'http://[::1]:4000/', 'http://127.1:4000/', 'https://localhost/']) {
      expect(urlProblem(url, devTestMode), url).toBeNull();
    }
    for (const url of ['http://hooks.example.com/', 'http://10.0.0.1/', 'http://192.168.1.10:4000/', 'https://169.254.169.254/', 'http://api.localhost/']) {
      expect(urlProblem(url, devTestMode), url).not.toBeNull();
    }
    expect(urlProblem('http://user:pw@127.0.0.1:4000/', devTestMode)).toBe('Must not contain credentials');
    const devLiveMode = addressPolicy({ allowPrivate: false, testLoopback: true }, { livemode: true });
    expect(urlProblem('http://127.0.0.1:4000/', devLiveMode)).toBe('Must be an https URL');
    expect(urlProblem('https://127.0.0.1:4000/', devLiveMode)).toMatch(/loopback/);
  });
});
