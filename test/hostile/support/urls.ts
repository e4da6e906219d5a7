/** Percent-encodes any string, lone surrogates included (as their WTF-8 bytes, which are not valid UTF-8). */
export function pct(s: string): string {
  if (/^[A-Za-z0-9_.~-]*$/.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const cu = s.charCodeAt(i);
    const next = s.charCodeAt(i + 1);
    if (cu >= 0xd800 && cu <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(s.slice(i, i + 2));
      i++;
    } else if (cu >= 0xd800 && cu <= 0xdfff) {
      out += [0xe0 | (cu >> 12), 0x80 | ((cu >> 6) & 0x3f), 0x80 | (cu & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(s[i]!);
  }
  return out;
}

/** Path parameters as raw (already encoded) text, so a test can also send broken encodings. */
export const fillPath = (template: string, raw: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (_m, name: string) => raw[name] ?? 'x');

/** A query string from raw (already encoded) pairs. */
export const queryString = (pairs: [string, string][]) => (pairs.length ? '?' + pairs.map(([k, v]) => `${k}=${v}`).join('&') : '');

/** Broken or tricky percent-encodings, sent as-is. */
export const RAW_ENCODINGS: readonly string[] = ['%', '%Z', '%ZZ', '%E0%A4%A', '%C0%AF', '%FF', '%ED%A0%80', '%2F', '%2e%2e', '%2e%2e%2f%2e%2e%2f', '%00', '%0d%0a', '+', '%20', '%25'];
