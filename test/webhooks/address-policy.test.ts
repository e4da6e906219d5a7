import { describe, it, expect } from 'vitest';
import { isForbiddenAddress } from '../../src/webhooks/address-policy.rules.js';

// [address, why] — every forbidden range with its edges, and the first public address past them.
const FORBIDDEN: Array<[string, string]> = [
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', '0/8 upper edge'],
  ['10.0.0.0', 'private 10/8 lower edge'],
  ['10.255.255.255', 'private 10/8 upper edge'],
  ['100.64.0.0', 'CGNAT lower edge'],
  ['100.127.255.255', 'CGNAT upper edge'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback upper'],
  ['169.254.0.1', 'link-local'],
  ['169.254.169.254', 'cloud metadata'],
  ['172.16.0.0', 'private 172.16/12 lower edge'],
  ['172.31.255.255', 'private 172.16/12 upper edge'],
  ['192.0.0.8', '192.0.0.0/24'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['192.168.0.1', 'private 192.168/16'],
  ['192.168.255.255', 'private 192.168/16 upper edge'],
  ['198.18.0.0', 'benchmarking lower edge'],
  ['198.19.255.255', 'benchmarking upper edge'],
  ['198.51.100.7', 'TEST-NET-2'],
  ['203.0.113.9', 'TEST-NET-3'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.255', 'multicast upper'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'v6 unspecified'],
  ['::1', 'v6 loopback'],
  ['0:0:0:0:0:0:0:1', 'v6 loopback, long form'],
  ['fe80::1', 'v6 link-local'],
  ['febf:ffff::1', 'v6 link-local upper edge'],
  ['fe80::1%eth0', 'v6 link-local with zone'],
  ['fc00::1', 'unique-local lower'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local upper'],
  ['ff02::1', 'v6 multicast'],
  ['::ffff:127.0.0.1', 'v4-mapped loopback, dotted'],
  ['::ffff:7f00:1', 'v4-mapped loopback, hex'],
  ['0:0:0:0:0:ffff:a9fe:a9fe', 'v4-mapped metadata, long form'],
  ['::ffff:10.1.2.3', 'v4-mapped private'],
  ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
  ['64:ff9b::127.0.0.1', 'NAT64 of loopback, dotted'],
  ['64:ff9b:1::8.8.8.8', 'local-use NAT64'],
  ['2002:7f00:1::', '6to4 of loopback'],
  ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
  ['2001:db8::1', 'v6 documentation'],
  ['2001::1', 'Teredo'],
  ['::127.0.0.1', 'deprecated IPv4-compatible'],
  ['100::1', 'v6 discard-only'],
  ['[::1]', 'bracketed loopback'],
  ['localhost', 'not an IP literal: fail closed'],
  ['127.1', 'shorthand is not canonical: fail closed'],
  ['0177.0.0.1', 'octal is not canonical: fail closed'],
  ['2130706433', 'integer form is not canonical: fail closed'],
  ['', 'empty'],
];

const ALLOWED: Array<[string, string]> = [
  ['8.8.8.8', 'Google DNS'],
  ['1.1.1.1', 'Cloudflare DNS'],
  ['9.255.255.255', 'just below 10/8'],
  ['11.0.0.0', 'just above 10/8'],
  ['100.63.255.255', 'just below CGNAT'],
  ['100.128.0.0', 'just above CGNAT'],
  ['126.255.255.255', 'just below loopback'],
  ['128.0.0.0', 'just above loopback'],
  ['169.253.255.255', 'just below link-local'],
  ['172.15.255.255', 'just below 172.16/12'],
  ['172.32.0.0', 'just above 172.16/12'],
  ['192.167.255.255', 'just below 192.168/16'],
  ['192.169.0.0', 'just above 192.168/16'],
  ['198.17.255.255', 'just below benchmarking'],
  ['198.20.0.0', 'just above benchmarking'],
  ['223.255.255.255', 'just below multicast'],
  ['2606:4700:4700::1111', 'Cloudflare DNS v6'],
  ['2001:4860:4860::8888', 'Google DNS v6'],
  ['::ffff:8.8.8.8', 'v4-mapped public'],
  ['64:ff9b::808:808', 'NAT64 of 8.8.8.8'],
  ['2002:808:808::1', '6to4 of 8.8.8.8'],
];

describe('isForbiddenAddress', () => {
  it.each(FORBIDDEN)('forbids %s (%s)', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(ALLOWED)('allows %s (%s)', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });
});
