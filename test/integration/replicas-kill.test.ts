// A replica killed (-9) under load loses and doubles no delivery: two replica processes on one
// PostgreSQL take signed deliveries round robin; halfway one is killed. Its unanswered deliveries go
// to the survivor (a balancer's retry), the survivor's retry pass takes over the dead one's leases
// once they ran out; then every delivery is processed and every issue dispatched exactly once.
import { describe, expect, it } from 'vitest';
import { pgForFile } from '../support/pg.ts';
import { killReplicaUnderLoad } from '../support/replica-kill.ts';

const pg = await pgForFile();

describe.skipIf(!pg.available)('a replica killed -9 under load', () => {
  it('loses no delivery and dispatches none twice', async () => {
    const out = await killReplicaUnderLoad(pg.schemas(), { deliveries: 200, inFlight: 8 });
    expect(out).toMatchObject({ killedBy: 'SIGKILL', deliveries: 200, unprocessed: 0, lost: 0, doubled: 0 });
  }, 120_000);
});
