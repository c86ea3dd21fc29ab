// What `npm ci` installs runs on every Node the project admits: each package the lock file installs
// for production declares support (its `engines.node`) for the oldest Node of package.json's range and
// for the Node running this test, so no install on a supported Node warns EBADENGINE about the bot's
// own code. (content-type 3, pulled by @octokit/request, declared node >= 22: package.json overrides it.)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

interface LockEntry {
  version?: string;
  dev?: boolean;
  engines?: { node?: string };
}

describe('dependency engines', () => {
  it('every production package in the lock file supports the oldest Node the project admits, and this one', () => {
    const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    const lock = JSON.parse(readFileSync(resolve(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const oldest = semver.minVersion(pkg.engines.node)?.version;
    if (!oldest) throw new Error(`package.json engines.node "${pkg.engines.node}" admits no version`);
    const refused = Object.entries(lock.packages).flatMap(([path, e]) => {
      const range = e.engines?.node;
      if (path === '' || e.dev || !range) return [];
      return [oldest, process.versions.node]
        .filter((v) => !semver.satisfies(v, range))
        .map((v) => `${path}@${e.version} (node ${range}) refuses Node ${v}`);
    });
    expect(refused).toEqual([]);
  });
});
