import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/git.ts';
import { attempt } from '../../test/support/store-suite-fixtures.ts';
import { describeLedgerCases } from '../../test/support/store-suite-ledger.ts';
import { InMemoryAttemptLedger, JsonFileAttemptLedger } from './ledger.ts';

// The same ledger cases the SQLite and PostgreSQL ledgers run, so the in-memory one stays a drop-in.
describeLedgerCases('in-memory', () => new InMemoryAttemptLedger());

describe('file attempt ledger', () => {
  it('the file ledger survives a new instance (a supervisor restart)', async () => {
    const file = join(tempDir(), 'ledger.json');
    const l = new JsonFileAttemptLedger(file);
    await l.create(attempt('a'));
    await l.update('a', { pid: 1234, nudges: 2 });
    expect(await new JsonFileAttemptLedger(file).get('a')).toMatchObject({ pid: 1234, nudges: 2 });
  });
});
