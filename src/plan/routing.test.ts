import { describe, expect, it } from 'vitest';
import type { AttemptRecord, PickInput, RosterEntry } from './routing.ts';
import { pickReviewer, pickWorker } from './routing.ts';

const entry = (name: string, over: Partial<RosterEntry> = {}): RosterEntry => ({
  name,
  tool: 'claude',
  roles: ['blitz', 'review'],
  tiers: ['execution'],
  costRank: 1,
  ...over,
});

const roster: RosterEntry[] = [
  entry('sonnet', { model: 'sonnet', costRank: 2 }),
  entry('codex-medium', {
    tool: 'codex',
    provider: 'openai',
    effort: 'medium',
    tiers: ['execution', 'design'],
    costRank: 1,
  }),
  entry('codex-high', {
    tool: 'codex',
    provider: 'openai',
    effort: 'high',
    tiers: ['design', 'subtle'],
    costRank: 3,
  }),
  entry('opus', { model: 'opus', tiers: ['design', 'subtle'], costRank: 4 }),
  entry('local', { tool: 'ollama', provider: 'local', roles: ['review'], costRank: 0 }),
];

const pick = (over: Partial<PickInput>) =>
  pickWorker({ role: 'blitz', assessedTier: 'execution', roster, attempts: [], ...over });

describe('pickWorker', () => {
  it('starts with the cheapest capable entry of the tier', () => {
    expect(pick({}).entry.name).toBe('codex-medium');
  });

  it('alternates within a tier from the usage counts', () => {
    expect(pick({ usage: { 'codex-medium': 1 } }).entry.name).toBe('sonnet');
    expect(pick({ usage: { 'codex-medium': 1, sonnet: 1 } }).entry.name).toBe('codex-medium');
  });

  it('escalates sideways to an untried peer before going up', () => {
    const attempts: AttemptRecord[] = [{ entry: 'codex-medium', tier: 'execution', outcome: 'unsolved' }];
    const p = pick({ attempts });
    expect(p.entry.name).toBe('sonnet');
    expect(p.tier).toBe('execution');
    expect(p.reason).toContain('sideways');
  });

  it('does not hold a stop for refused commands against the model: the same entry stays first', () => {
    const attempts: AttemptRecord[] = [
      { entry: 'codex-medium', tier: 'execution', outcome: 'stalled', refused: ['Bash(pytest:*)'] },
    ];
    expect(pick({ attempts, usage: { sonnet: 1 } }).entry.name).toBe('codex-medium');
    expect(
      pick({ attempts: [{ ...attempts[0]!, refused: undefined }], usage: { sonnet: 1 } }).entry.name,
    ).toBe('sonnet');
  });

  it('goes up a tier when every peer failed, skipping entries that already failed', () => {
    const attempts: AttemptRecord[] = [
      { entry: 'codex-medium', tier: 'execution', outcome: 'unsolved' },
      { entry: 'sonnet', tier: 'execution', outcome: 'stalled' },
    ];
    const p = pick({ attempts });
    expect(p.tier).toBe('design');
    expect(p.entry.name).toBe('codex-high');
  });

  it('never de-escalates within an issue', () => {
    const attempts: AttemptRecord[] = [{ entry: 'opus', tier: 'subtle', outcome: 'environment_failure' }];
    expect(pick({ attempts }).tier).toBe('subtle');
  });

  it('an environment failure does not count against the model', () => {
    const attempts: AttemptRecord[] = [
      { entry: 'codex-medium', tier: 'execution', outcome: 'environment_failure' },
    ];
    expect(pick({ attempts }).entry.name).toBe('codex-medium');
  });

  it('preferMedium skips high-effort entries when a medium one exists', () => {
    expect(pick({ assessedTier: 'design' }).entry.name).toBe('codex-medium');
    expect(pick({ assessedTier: 'subtle' }).entry.name).toBe('codex-high');
    expect(pick({ assessedTier: 'subtle', preferMedium: true }).entry.name).toBe('opus');
  });

  it('the operator override wins over tiers and escalation', () => {
    const attempts: AttemptRecord[] = [{ entry: 'opus', tier: 'subtle', outcome: 'unsolved' }];
    expect(pick({ attempts, override: { model: 'sonnet' } }).entry.name).toBe('sonnet');
    const unknown = pick({ override: { tool: 'aider', model: 'gpt-x' } });
    expect(unknown.entry).toMatchObject({ tool: 'aider', model: 'gpt-x' });
    expect(unknown.reason).toContain('operator override');
  });

  it('model notes can take an entry out of a tier', () => {
    expect(pick({ notes: { 'codex-medium': { avoidTiers: ['execution'] } } }).entry.name).toBe('sonnet');
  });

  it('falls back to the built-in defaults and says so when the roster has nothing for the role', () => {
    const p = pick({ role: 'fleet' });
    expect(p.fallback).toBe(true);
    expect(p.entry).toMatchObject({ tool: 'claude', model: 'sonnet' });
    expect(p.reason).toContain('roster has no fleet entry for tier execution');
  });

  it('says when every entry has failed', () => {
    const attempts: AttemptRecord[] = ['codex-medium', 'sonnet', 'codex-high', 'opus'].map((e) => ({
      entry: e,
      tier: 'execution',
      outcome: 'unsolved',
    }));
    expect(pick({ attempts }).exhausted).toBe(true);
  });
});

describe('pickReviewer', () => {
  it('prefers a reviewer of another tool and provider than the author', () => {
    expect(pickReviewer(roster, roster[0]!).entry.name).toBe('local');
    const noLocal = roster.filter((e) => e.name !== 'local');
    expect(pickReviewer(noLocal, roster[0]!).entry.name).toBe('codex-medium');
    // only claude reviewers left: a different claude entry, never the author itself
    const claudeOnly = roster.filter((e) => e.tool === 'claude');
    expect(pickReviewer(claudeOnly, roster[0]!).entry.name).toBe('opus');
  });
  it('falls back with a reason when the roster has no reviewer', () => {
    const r = pickReviewer([], roster[0]!);
    expect(r.fallback).toBe(true);
    expect(r.entry.tool).toBe('codex');
  });
});
