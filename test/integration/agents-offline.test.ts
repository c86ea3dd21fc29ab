// The agents tier's offline mode (test/agents/offline.ts): the namespace it runs the tier in has a
// working loopback (the mock model is reached there) and nothing else, and the check the tier starts
// with tells such a namespace from the host's network.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeBubblewrap } from '../../src/runner/jail.ts';
import { loopbackOnly, offlineCheck } from '../agents/offline.ts';

const bwrap = probeBubblewrap(undefined, process.env.PATH);

// Inside the namespace: a server on loopback answers, then the tier's own check runs.
const probe = `
import { createServer, connect } from 'node:net';
import { offlineCheck } from ${JSON.stringify(resolve('test/agents/offline.ts'))};
const server = createServer((s) => s.end('hello')).listen(0, '127.0.0.1', () => {
  const c = connect(server.address().port, '127.0.0.1');
  let got = '';
  c.on('data', (d) => { got += d; });
  c.on('end', async () => {
    server.close();
    console.log(JSON.stringify({ loopback: got, check: await offlineCheck() }));
  });
});
`;

describe.skipIf(!bwrap.ok)(
  `the agents tier's loopback-only namespace${bwrap.ok ? '' : ` (skipped: ${bwrap.reason})`}`,
  () => {
    it('has loopback, no other interface, and no way to registry.npmjs.org', () => {
      const [file, ...args] = loopbackOnly(['node', '--import', 'tsx', '--input-type=module', '-e', probe]);
      const res = spawnSync(file!, args, { encoding: 'utf8', timeout: 60_000 });
      expect(res.status, res.stderr).toBe(0);
      const out = JSON.parse(res.stdout.trim().split('\n').pop()!);
      expect(out.loopback).toBe('hello');
      expect(out.check).toMatchObject({
        offline: true,
        registry: expect.stringMatching(/^(E[A-Z_]+|timeout)$/),
      });
    });

    it('the check finds a way out where there is one: any interface besides loopback counts', async () => {
      const check = await offlineCheck();
      const outside = Object.values((await import('node:os')).networkInterfaces())
        .flat()
        .some((a) => a && !a.internal);
      // On a host with a network card the check must say so; on one without, it agrees it is offline.
      expect(check.offline).toBe(!outside);
    });
  },
);
