/** Strings that break naive parsers, templates, shells, SQL and Unicode handling. */
export const HOSTILE_STRINGS: readonly string[] = [
  '', ' ', '\t\r\n', 'null', 'undefined', 'NaN', 'true', '0', '-1', '1e400', '[]', '{}',
  // injection
  "' OR 1=1 --", "'; DROP TABLE charges; --", '" OR ""="', "1' AND pg_sleep(5)--", '\\', "\\'", '$1', '%s%s%n', '%00',
  '${7*7}', '#{7*7}', '{{7*7}}', '{{constructor.constructor("return process")()}}', '<%= 7*7 %>',
  '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', 'javascript:alert(1)',
  '../../../../etc/passwd', '..\\..\\windows\\win.ini', '..%2f..%2fetc%2fpasswd', '/', '.', '..',
  'a\r\nSet-Cookie: x=1', 'a\nb', '__proto__', 'constructor', 'prototype', '$where', '{"$gt":""}',
  // unicode
  '\u0000', 'a\u0000b', '\u0001\u001f\u007f', '😀🇧🇷👨‍👩‍👧‍👦', 'مرحبا بالعالم', 'שָׁלוֹם', '\u202Eevil\u202C', 'e\u0301\u0301\u0301\u0301',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǫ̗', '\ud800', '\udfff', 'a\ud83d', '\ud83db', '\uFEFF', '\u200B\u200D', '\uFFFF\uFFFE', 'ＡＢＣ', 'İı', 'ß',
];

/** Bigger than any field allows, and the body limit (1 MiB). */
export const HUGE = 'A'.repeat(100 * 1024);
export const HUGE_EMOJI = '😀'.repeat(25 * 1024);
export const OVER_BODY_LIMIT = 1024 * 1024 + 16;

/** Number tokens written as JSON text (floats for cents, overflow, negative zero, exponents). */
export const NUMBER_TOKENS: readonly string[] = [
  '10.5', '0.1', '99.99', '100.5', '1e-7', '1e400', '-1e400', '1e2', '1000.0', '-0', '-0.0', '1E3', '9007199254740993',
  '1e308', '-1', '0', '4294967296', '100.000000001',
];

/** JSON texts that do not parse (or do not parse to one value). */
export const MALFORMED_JSON: readonly string[] = [
  '{', '}', '{"a":', '{"a":1,}', "{'a':1}", '{a:1}', '{"a":1}{"b":2}', '{"a":NaN}', '{"a":Infinity}', '{"a":undefined}',
  '{"a":01}', '{"a":.5}', '{"a":+1}', '{"a":"\\x41"}', '{"a":"\\u12"}', '{"a":"tab\there"}', '{"a":"\u0000"}', '/* c */{}',
  '{"a":1} // c', '[1,2', '"unterminated', 'nul', 'tru', '\u00a0{"a"\u00a0:1}', '{"a":1]', '{{}}', '\\', '<xml/>', 'a=1&b=2',
];

export const WRONG_CONTENT_TYPES: readonly string[] = [
  'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'text/json',
  'application/javascript', 'application/octet-stream', 'image/png', 'application/jsonp', 'json',
];

/** Idempotency-Key values outside 1–255 printable ASCII characters, all legal in an HTTP header. */
export const BAD_IDEMPOTENCY_KEYS: readonly string[] = ['', 'k'.repeat(256), 'tab\there', 'del\x7f', 'cl\xe9', '\xff\xfe', `${'k'.repeat(200)}é`];

/** Authorization values that must never authenticate (`key` is a real merchant key, `admin` the operator token). */
export const badAuthorizations = (key: string, admin: string): string[] => [
  '', 'Bearer', 'Bearer ', 'Bearer  ', 'Basic ' + Buffer.from(`${key}:`).toString('base64'), 'Token ' + key, `Bearer ${key}x`,
  `Bearer ${key.slice(0, -1)}`, `Bearer ${key.toUpperCase()}`, `Bearer ${key} ${key}`, `Bearer "${key}"`, `Bearer ${key},${key}`,
  'Bearer pxg_' + '0'.repeat(40), 'Bearer pxg_' + 'A'.repeat(41), `Bearer ${admin}x`, 'Bearer ' + 'x'.repeat(64 * 1024),
  "Bearer ' OR 1=1 --", 'Bearer \xe9\xe9', 'Bearer ../../etc/passwd',
];
