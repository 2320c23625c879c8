import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { dashboardSite, loopbackReachableOrigin } from './site.js';

describe('the dashboard site', () => {
  it('on loopback answers at both loopback names, each with its own callback', () => {
    const site = dashboardSite(loadConfig({}), 'http://127.0.0.1:8080');
    expect(site.origins).toEqual(['http://127.0.0.1:8080', 'http://localhost:8080']);
    expect(site.originFor('localhost:8080')).toBe('http://localhost:8080');
    expect(site.originFor('attacker.example')).toBe('http://127.0.0.1:8080');
    expect(site.callbackUrl('http://localhost:8080')).toBe('http://localhost:8080/dashboard/callback');
  });

  it('uses PUBLIC_URL and DASHBOARD_ORIGINS when set', () => {
    const config = loadConfig({ AUTH_ISSUER: 'https://sso.example.com', AUTH_AUDIENCE: 'api', PUBLIC_URL: 'https://domains.example.com', DASHBOARD_ORIGINS: 'http://localhost:5173' });
    const site = dashboardSite(config, 'http://10.0.0.5:8080');
    expect(site.origins).toEqual(['https://domains.example.com', 'http://localhost:5173']);
    expect(site.originFor('localhost:5173')).toBe('http://localhost:5173');
  });

  it('reaches an api listening on every address at 127.0.0.1 (a container published on loopback)', () => {
    expect(loopbackReachableOrigin('http://0.0.0.0:8080')).toBe('http://127.0.0.1:8080');
    expect(loopbackReachableOrigin('http://[::]:8080')).toBe('http://127.0.0.1:8080');
    expect(loopbackReachableOrigin('http://[::1]:8080')).toBe('http://[::1]:8080');
  });
});
