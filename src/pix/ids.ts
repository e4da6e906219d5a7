import { randomBase62 } from '../platform/ids.js';

/**
 * Static BR Code txid (62-05): 1–25 characters [A-Za-z0-9] (Manual do BR Code; BCB in bacen/pix-api #77, #212).
 * This is the kind the simulator issues.
 */
export function isValidStaticTxid(s: string): boolean {
  return /^[A-Za-z0-9]{1,25}$/.test(s);
}

/** Txid of a dynamic charge (API Pix `TxId` of cob/cobv): 26–35 characters [A-Za-z0-9]. */
export function isValidDynamicTxid(s: string): boolean {
  return /^[A-Za-z0-9]{26,35}$/.test(s);
}

/** Any txid a received Pix can carry (API Pix `Pix.txid`: [a-zA-Z0-9]{1,35}), static or dynamic. */
export function isValidTxid(s: string): boolean {
  return /^[A-Za-z0-9]{1,35}$/.test(s);
}

/** 25 random alphanumerics: the longest txid a static BR Code accepts. */
export function newTxid(): string {
  return randomBase62(25);
}

/**
 * A dynamic charge's txid (`cob`, `cobv`): 32 random alphanumerics, inside API Pix's `[a-zA-Z0-9]{26,35}` and
 * unguessable, so a charge is never confused with another.
 */
export function newDynamicTxid(): string {
  return randomBase62(32);
}

/** `yyyyMMddHHmm` in UTC, or null when the date has no 4-digit year. */
function utcMinuteStamp(at: Date): string | null {
  if (Number.isNaN(at.getTime())) return null;
  const iso = at.toISOString();
  if (!/^\d{4}-/.test(iso)) return null;
  return iso.slice(0, 4) + iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(11, 13) + iso.slice(14, 16);
}

/**
 * SPI end-to-end id: `E` + ISPB (8 digits) + `yyyyMMddHHmm` (UTC) + 11 alphanumerics unique within
 * that minute = 32 characters (API Pix `EndToEndId`, catálogo de mensagens do SPI).
 */
export function newEndToEndId(ispb: string, at: Date): string {
  if (!/^\d{8}$/.test(ispb)) throw new Error('ISPB must be 8 digits');
  const stamp = utcMinuteStamp(at);
  if (stamp === null) throw new Error('invalid date for an end-to-end id');
  return `E${ispb}${stamp}${randomBase62(11)}`;
}

/**
 * Pix Automático's recurrence id (API Pix `RecId`): `R`, `R` when it allows retries after the due date or `N`,
 * the receiving agent's ISPB (8), the creation date `yyyyMMdd` (UTC) and 11 alphanumerics = 29 characters.
 */
export function newRecurrenceId(ispb: string, retries: boolean, at: Date): string {
  if (!/^\d{8}$/.test(ispb)) throw new Error('ISPB must be 8 digits');
  const stamp = utcMinuteStamp(at);
  if (stamp === null) throw new Error('invalid date for a recurrence id');
  return `R${retries ? 'R' : 'N'}${ispb}${stamp.slice(0, 8)}${randomBase62(11)}`;
}

const E2E = /^E\d{8}(\d{12})[A-Za-z0-9]{11}$/;

/** Checks the SPI structure, including that the timestamp is a real UTC minute. */
export function isValidEndToEndId(s: string): boolean {
  const stamp = E2E.exec(s)?.[1];
  if (stamp === undefined) return false;
  const field = (from: number, to: number): number => Number(stamp.slice(from, to));
  const at = new Date(Date.UTC(field(0, 4), field(4, 6) - 1, field(6, 8), field(8, 10), field(10, 12)));
  return utcMinuteStamp(at) === stamp;
}
