// Which IP addresses a webhook may never be delivered to (SSRF defence, docs/contract/webhooks.md#webhook-urls).
// Input is an address as DNS or a URL parser hands it over; anything that is not a valid
// IP literal is treated as forbidden, so a parsing gap can only ever fail closed.
import { BlockList, isIP } from 'node:net';

const V4_FORBIDDEN: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", incl. the unspecified 0.0.0.0
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, incl. cloud metadata 169.254.169.254
  ['168.63.129.16', 32], // Azure's platform endpoint (wireserver): DHCP, DNS, health probes, VM agent
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast 255.255.255.255
];

// Only 2000::/3 is allocated global unicast; everything outside it (::, ::1, fc00::/7,
// fe80::/10, fec0::/10, ff00::/8, 100::/64, 64:ff9b:1::/48, ...) is refused by that rule.
// These are the special-purpose blocks that sit inside 2000::/3.
const V6_FORBIDDEN_IN_GLOBAL: ReadonlyArray<readonly [string, number]> = [
  ['2001::', 23], // IETF protocol assignments, incl. Teredo 2001::/32 (embeds an obfuscated v4)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
];

const v4Block = new BlockList();
for (const [net, prefix] of V4_FORBIDDEN) v4Block.addSubnet(net, prefix, 'ipv4');
const v6Global = new BlockList();
v6Global.addSubnet('2000::', 3, 'ipv6');
const v6Block = new BlockList();
for (const [net, prefix] of V6_FORBIDDEN_IN_GLOBAL) v6Block.addSubnet(net, prefix, 'ipv6');

/** Expands IPv6 text (already validated by isIP) into its eight 16-bit groups. */
function v6Groups(ip: string): number[] {
  let text = ip;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  if (dotted) {
    // Trailing dotted quad (::ffff:1.2.3.4): fold it into the last two groups.
    const [, prefix = '', a = '0', b = '0', c = '0', d = '0'] = dotted;
    tail.push((Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d));
    text = prefix.endsWith('::') ? prefix : prefix.slice(0, -1);
  }
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const [head = '', rest] = text.split('::');
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const missing = 8 - tail.length - left.length - right.length;
  const groups = [...left, ...new Array<number>(Math.max(0, missing)).fill(0), ...right, ...tail];
  return groups.slice(0, 8);
}

/** The IPv4 address embedded in a v4-mapped, NAT64 or 6to4 IPv6 address, if any. */
function embeddedV4(g: number[]): string | null {
  const at = (i: number): number => g[i] ?? 0;
  const quad = (hi: number, lo: number): string => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && at(5) === 0xffff) return quad(at(6), at(7)); // ::ffff:0:0/96
  if (at(0) === 0x64 && at(1) === 0xff9b && zeros(2, 6)) return quad(at(6), at(7)); // 64:ff9b::/96
  if (at(0) === 0x2002) return quad(at(1), at(2)); // 6to4 2002::/16
  return null;
}

/**
 * True when a webhook must not be delivered to `ip` (v4 or v6 text, optional `%zone`).
 * Embedded IPv4 addresses (v4-mapped, NAT64, 6to4) are judged by the v4 they carry.
 */
export function isForbiddenAddress(ip: string): boolean {
  const bare = ip.trim().replace(/^\[(.*)\]$/, '$1');
  const zoneAt = bare.indexOf('%');
  // A zone id only makes sense on link-local scope, which is forbidden anyway.
  if (zoneAt !== -1) return true;
  const family = isIP(bare);
  if (family === 4) return v4Block.check(bare, 'ipv4');
  if (family !== 6) return true;
  const groups = v6Groups(bare);
  const v4 = embeddedV4(groups);
  if (v4 !== null) return isIP(v4) !== 4 || v4Block.check(v4, 'ipv4');
  const canonical = groups.map((x) => x.toString(16)).join(':');
  if (!v6Global.check(canonical, 'ipv6')) return true;
  return v6Block.check(canonical, 'ipv6');
}
