#!/usr/bin/env node
// A program a worker names in its git config (gpg.program, core.alternateRefsCommand, core.fsmonitor):
// whoever runs it appends its uid to `uids.log` beside it, so a test sees which users ever ran it. As
// gpg it answers like one: a detached signature when asked to sign, a good signature when asked to
// verify; as anything else it prints nothing.
import { appendFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
appendFileSync(join(dirname(fileURLToPath(import.meta.url)), 'uids.log'), `${process.getuid()}\n`);
if (args.includes('-bsau')) {
  readFileSync(0);
  process.stdout.write('-----BEGIN PGP SIGNATURE-----\n\nZmFrZQ==\n-----END PGP SIGNATURE-----\n');
  process.stderr.write('\n[GNUPG:] SIG_CREATED D 1 8 00 1700000000 FAKE\n');
} else if (args.includes('--verify')) {
  process.stdout.write('[GNUPG:] GOODSIG FAKE Fake Agent <fake@blitz.invalid>\n');
}
