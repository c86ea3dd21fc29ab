// Addresses the bot never sends a request to on a repository's word: link-local networks and the
// cloud providers' metadata services, which hand out the host's own cloud credentials to whoever on
// the machine asks. A repository config names `ship.healthUrl`; anyone who can push that file must
// not be able to point the bot at them. Checked when the config is parsed (the URL's host) and again
// when the host is resolved (a name that resolves to one of them). Pure: no DNS here.
import { BlockList, isIP } from 'node:net';

const refused = new BlockList();
refused.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, AWS/GCP/Azure/OpenStack 169.254.169.254
refused.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
refused.addAddress('168.63.129.16', 'ipv4'); // Azure's platform endpoint (wireserver)
refused.addSubnet('fe80::', 10, 'ipv6'); // link-local
refused.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6

/** Names of metadata services, resolved inside the cloud they belong to. */
const refusedNames = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

/** The words for a refusal, shared by the config check and the resolve-time check. */
export const refusedAddressWhy = 'a link-local or cloud-metadata address, which the bot never asks';

/**
 * True when an IP address (v4 or v6, as text) is one the bot never sends a request to. BlockList
 * checks an IPv4-mapped IPv6 address (`::ffff:a9fe:a9fe`) against the IPv4 ranges too.
 */
export const isRefusedIp = (ip: string): boolean => {
  const plain = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(plain);
  if (family === 0) return false;
  return refused.check(plain, family === 4 ? 'ipv4' : 'ipv6');
};

/**
 * True when a URL's hostname (as `new URL(u).hostname` gives it: IPv4 normalised, IPv6 in brackets)
 * names a refused address or a metadata service.
 */
export const isRefusedHost = (hostname: string): boolean => {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return refusedNames.has(host) || isRefusedIp(host);
};
