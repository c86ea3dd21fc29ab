import { describe, expect, it } from 'vitest';
import { isRefusedHost, isRefusedIp } from './refused-address.ts';

const hostOf = (url: string) => new URL(url).hostname;

describe('isRefusedHost', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://169.254.0.1/',
    'http://2852039166/', // 169.254.169.254 written as one number
    'http://0xa9fea9fe/',
    'http://[fe80::1]/',
    'http://[FEBF::abcd]/',
    'http://[fd00:ec2::254]/',
    'http://[::ffff:169.254.169.254]/',
    'http://100.100.100.200/',
    'http://168.63.129.16/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://METADATA.GOOGLE.INTERNAL./',
    'http://metadata/',
  ])('refuses %s', (url) => {
    expect(isRefusedHost(hostOf(url))).toBe(true);
  });

  it.each([
    'https://shop.example.com/healthz',
    'http://127.0.0.1:8080/healthz',
    'http://10.0.0.5/',
    'http://169.255.0.1/',
    'http://[fec0::1]/',
    'http://[fd00:ec2::253]/',
    'http://metadata.example.com/',
  ])('lets %s through', (url) => {
    expect(isRefusedHost(hostOf(url))).toBe(false);
  });
});

describe('isRefusedIp', () => {
  it('reads resolver answers, scoped IPv6 included', () => {
    expect(isRefusedIp('169.254.169.254')).toBe(true);
    expect(isRefusedIp('fe80::1%eth0')).toBe(true);
    expect(isRefusedIp('93.184.216.34')).toBe(false);
    expect(isRefusedIp('not an address')).toBe(false);
  });
});
