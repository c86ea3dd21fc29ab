import { describe, expect, it } from 'vitest';
import { checksClaim, gateLine, greenAt, smokeStep, verifiedBy } from './gate-checks.ts';

const head = 'a1b2c3d4e5f6';
const old = '0f0f0f0f0f0f';

describe('gateLine', () => {
  it('shows an unconfigured check as not configured, never green', () => {
    const line = gateLine('smoke', { status: 'passed', configured: false });
    expect(line).toBe('smoke: not configured (no `smoke:` command in blitz.yml)');
    expect(line).not.toContain('green');
  });

  it('names the commit a check ran on, and a green on an older head as running again', () => {
    expect(gateLine('build', { status: 'passed', configured: true, sha: head }, head)).toBe(
      'build: green on a1b2c3d',
    );
    expect(gateLine('build', { status: 'passed', configured: true, sha: old }, head)).toBe(
      'build: green on 0f0f0f0, not on the current head a1b2c3d; it runs again',
    );
    expect(gateLine('smoke', { status: 'failed', configured: true, sha: head })).toBe(
      'smoke: red on a1b2c3d',
    );
    expect(gateLine('smoke', { status: 'none', configured: true })).toBe('smoke: not run yet');
  });
});

describe('greenAt', () => {
  it('counts a green check only on the head it ran on', () => {
    expect(greenAt({ status: 'passed', configured: true, sha: head }, head)).toBe(true);
    expect(greenAt({ status: 'passed', configured: true, sha: old }, head)).toBe(false);
    expect(greenAt({ status: 'failed', configured: true, sha: head }, head)).toBe(false);
    // A record from before heads were kept, or no head read, still counts.
    expect(greenAt({ status: 'passed', configured: true }, head)).toBe(true);
    expect(greenAt({ status: 'passed', configured: true, sha: old }, undefined)).toBe(true);
  });
});

describe('checksClaim', () => {
  const ran = { status: 'passed' as const, configured: true, sha: head };
  const none = { status: 'passed' as const, configured: false };

  it('says exactly what ran and on which commit, and what the ship left answering', () => {
    expect(checksClaim({ build: ran, smoke: none, ship: { path: 'local' } }, true)).toBe(
      'build ✓ at `a1b2c3d`, smoke not configured, no preview',
    );
    expect(
      checksClaim({ build: ran, smoke: ran, ship: { path: 'local', url: 'http://10.0.0.2:5173' } }),
    ).toBe('build ✓ at a1b2c3d, smoke ✓ at a1b2c3d, preview at http://10.0.0.2:5173');
    expect(
      checksClaim({ build: none, smoke: ran, ship: { path: 'deploy', unchecked: 'https://app.example' } }),
    ).toBe(
      'build not configured, smoke ✓ at a1b2c3d, deployed to https://app.example, not checked live (no ship.healthUrl)',
    );
    expect(
      checksClaim({
        build: { status: 'failed', configured: true, sha: old },
        smoke: { status: 'none', configured: true },
      }),
    ).toBe('build ✗ at 0f0f0f0, smoke not run');
  });

  it('never says green or ✓ for a check with no command', () => {
    const words = checksClaim({ build: none, smoke: none, ship: { path: 'local' } });
    expect(words).toBe('build not configured, smoke not configured, no preview');
    expect(words).not.toMatch(/green|✓/);
    expect(verifiedBy(none, none)).toBe(false);
    expect(verifiedBy(ran, none)).toBe(true);
    expect(verifiedBy(ran, { status: 'none', configured: true })).toBe(false);
  });
});

describe('smokeStep', () => {
  const smoke = (status: 'none' | 'running' | 'passed' | 'failed', failures = 0, sha?: string) => ({
    status,
    configured: true,
    failures,
    ...(sha ? { sha } : {}),
  });

  it('runs the smoke check on the current head, and again when the head moved', () => {
    expect(smokeStep(smoke('none'), head)).toEqual({ type: 'run' });
    expect(smokeStep(smoke('running'), head)).toEqual({ type: 'wait' });
    expect(smokeStep(smoke('passed', 0, head), head)).toEqual({ type: 'green' });
    expect(smokeStep(smoke('passed', 0, old), head)).toEqual({ type: 'run' });
  });

  it('files a red smoke as a finding for another pass, and stops BLOCKED after the allowance', () => {
    expect(smokeStep(smoke('failed', 1), head)).toEqual({ type: 'finding', pass: 1 });
    expect(smokeStep(smoke('failed', 2), head, 3)).toEqual({ type: 'finding', pass: 2 });
    expect(smokeStep(smoke('failed', 3), head, 3)).toEqual({
      type: 'blocked',
      reason: 'the smoke check was red 3 times in a row on the integration branch',
    });
    expect(smokeStep(smoke('failed', 1), head, 1).type).toBe('blocked');
  });

  it('passes through an unconfigured smoke check without running anything', () => {
    expect(smokeStep({ status: 'none', configured: false, failures: 0 }, head)).toEqual({ type: 'green' });
  });
});
