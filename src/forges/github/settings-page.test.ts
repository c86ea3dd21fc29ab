import { describe, expect, it } from 'vitest';
import { installationSettingsPage, webBaseOf } from './index.ts';

describe("an installation's settings page", () => {
  it('is on github.com for api.github.com, and on the Enterprise host for its /api/v3', () => {
    expect(webBaseOf('https://api.github.com')).toBe('https://github.com');
    expect(webBaseOf('https://ghe.example.com/api/v3')).toBe('https://ghe.example.com');
    expect(webBaseOf('http://127.0.0.1:4000/api/v3/')).toBe('http://127.0.0.1:4000');
  });

  it("is under the organisation for an organisation's installation, in the user's settings otherwise", () => {
    expect(installationSettingsPage('https://github.com', 'acme', true, 77)).toBe(
      'https://github.com/organizations/acme/settings/installations/77',
    );
    expect(installationSettingsPage('https://github.com', 'alice', false, 77)).toBe(
      'https://github.com/settings/installations/77',
    );
  });
});
