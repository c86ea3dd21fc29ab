import { describe, expect, it } from 'vitest';
import { decideShipPath, destructiveMigrations, type ShipDecisionInput } from './decide.ts';

const safe: ShipDecisionInput = {
  policy: 'auto',
  milestone: { title: 'M1 checkout', description: 'Ship the checkout flow.' },
  deployCommand: ['./scripts/deploy.sh'],
  labels: ['bug', 'difficulty/execution'],
  changedFiles: ['src/cart.ts', 'db/migrations/004_add_orders.sql'],
};

describe('decideShipPath', () => {
  it('deploys under auto only when every condition holds', () => {
    expect(decideShipPath(safe)).toMatchObject({ path: 'deploy', source: 'heuristic' });
  });

  it.each([
    [
      'a spike milestone',
      { milestone: { title: 'M2', description: 'A quick spike to try maps' } },
      'marked "spike"',
    ],
    ['a throwaway title', { milestone: { title: 'Throwaway demo', description: '' } }, 'marked "Throwaway"'],
    [
      'a disposable milestone',
      { milestone: { title: 'M3', description: 'disposable prototype' } },
      'disposable',
    ],
    ['no deploy command', { deployCommand: undefined }, 'no ship.deploy command'],
    ['an empty deploy command', { deployCommand: [] }, 'no ship.deploy command'],
    ['an unsafe-deploy label', { labels: ['Unsafe-Deploy'] }, 'label unsafe-deploy'],
    ['a drop migration', { changedFiles: ['db/migrations/005_drop_users.sql'] }, '005_drop_users.sql'],
    [
      'a rename migration',
      { changedFiles: ['prisma/migrations/20240101_rename_col/migration.sql'] },
      'destructive',
    ],
  ])('falls back to local for %s', (_name, change, reason) => {
    const d = decideShipPath({ ...safe, ...change } as ShipDecisionInput);
    expect(d.path).toBe('local');
    expect(d.reasons.join(' | ')).toContain(reason);
  });

  it('gives every reason against a deploy, not just the first', () => {
    const d = decideShipPath({ ...safe, deployCommand: undefined, labels: ['unsafe-deploy'] });
    expect(d.reasons).toHaveLength(2);
  });

  it('follows an explicit policy without the heuristic', () => {
    expect(decideShipPath({ ...safe, policy: 'local' })).toEqual({
      path: 'local',
      source: 'policy',
      reasons: ['ship.policy is local'],
    });
    expect(
      decideShipPath({ ...safe, policy: 'deploy', milestone: { title: 'spike', description: '' } }),
    ).toMatchObject({ path: 'deploy', source: 'policy' });
  });

  it('lets --deploy / --local on the command win over the policy', () => {
    expect(decideShipPath({ ...safe, policy: 'deploy', override: 'local' })).toMatchObject({
      path: 'local',
      source: 'override',
    });
    expect(decideShipPath({ ...safe, policy: 'local', override: 'deploy' })).toMatchObject({
      path: 'deploy',
      source: 'override',
    });
  });

  it('never deploys without a deploy command, even when told to', () => {
    expect(decideShipPath({ ...safe, override: 'deploy', deployCommand: undefined })).toEqual({
      path: 'local',
      source: 'override',
      reasons: ['--deploy on the command, but no ship.deploy command is configured'],
    });
  });

  it('does not read a word that merely contains "spike" as a throwaway marker', () => {
    expect(decideShipPath({ ...safe, milestone: { title: 'Spiked punch menu', description: '' } }).path).toBe(
      'deploy',
    );
  });
});

describe('destructiveMigrations', () => {
  it('flags only migration paths whose file name reads destructive', () => {
    expect(
      destructiveMigrations([
        'src/drop-down.tsx',
        'db/migrations/001_create.sql',
        'db/migrations/002_drop_legacy.sql',
        'migrate/003_truncate_logs.ts',
        'schema/remove_index.sql',
      ]),
    ).toEqual([
      'db/migrations/002_drop_legacy.sql',
      'migrate/003_truncate_logs.ts',
      'schema/remove_index.sql',
    ]);
  });
});
