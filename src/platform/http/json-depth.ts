/**
 * How deep a JSON body may nest. Real bodies nest 3 levels (a charge's split items); a deeper body is
 * refused before parsing, as recursive code downstream (the idempotency request hash, JSON.stringify)
 * would overflow the stack on it and answer 500.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether `text` opens more than `max` nested arrays or objects (brackets inside strings do not count). */
export function jsonDepthExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
