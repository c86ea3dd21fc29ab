// One GET to a URL a repository's config named (`ship.healthUrl`), answering its status. The host is
// checked where the connection is made: the address the socket connects to is the one checked, so a
// name that resolves to a metadata service, or flips to one between two lookups, is refused, never
// asked. Redirects are not followed (a health URL that sends elsewhere is not healthy).
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isRefusedHost, isRefusedIp, refusedAddressWhy } from '../config/refused-address.ts';

/** Every address a name resolves to (`dns.lookup` with `all`); tests inject their own. */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** A request refused before it was made: the host is or resolves to a refused address. */
export class RefusedAddressError extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for http.request that resolves through `resolve` and refuses a refused address. */
const guardedLookup =
  (resolve: Resolve) =>
  (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (found) => {
        const bad = found.find((a) => isRefusedIp(a.address));
        if (bad)
          return callback(new RefusedAddressError(`resolves to ${bad.address}, ${refusedAddressWhy}`), '');
        const usable = options.family ? found.filter((a) => a.family === options.family) : found;
        const first = usable[0];
        if (!first) {
          const err: NodeJS.ErrnoException = new Error(`${hostname} did not resolve`);
          err.code = 'ENOTFOUND';
          return callback(err, '');
        }
        if (options.all) return callback(null, usable);
        return callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };

/**
 * The status a GET to `url` answered. Throws RefusedAddressError for a refused host (literal or
 * resolved), else the connection's error (its `code`, e.g. ECONNREFUSED).
 */
export const guardedGet = (
  url: string,
  opts: { signal: AbortSignal; resolve?: Resolve },
): Promise<number> => {
  const target = new URL(url);
  if (isRefusedHost(target.hostname))
    return Promise.reject(new RefusedAddressError(`is ${refusedAddressWhy}`));
  const literal = isIP(target.hostname.replace(/^\[|\]$/g, '')) !== 0;
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<number>((done, fail) => {
    const req = request(
      target,
      {
        method: 'GET',
        signal: opts.signal,
        // An IP literal is connected to as written (checked above); a name goes through the guard.
        ...(literal ? {} : { lookup: guardedLookup(opts.resolve ?? systemResolve) }),
      },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
        res.on('error', () => done(res.statusCode ?? 0));
      },
    );
    req.on('error', fail);
    req.end();
  });
};
