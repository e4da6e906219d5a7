import { describe, expect, it } from 'vitest';
import {
  isValidDynamicTxid,
  isValidEndToEndId,
  isValidStaticTxid,
  isValidTxid,
  newEndToEndId,
  newTxid,
} from '../../src/pix/ids.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

describe('newTxid', () => {
  const txids = Array.from({ length: 5000 }, newTxid);

  it('is 25 alphanumerics, a valid static txid', () => {
    for (const txid of txids) {
      expect(txid).toMatch(/^[A-Za-z0-9]{25}$/);
      expect(isValidStaticTxid(txid)).toBe(true);
    }
  });

  it('does not repeat over 5000 ids', () => {
    expect(new Set(txids).size).toBe(txids.length);
  });

  it('uses all 62 characters about evenly', () => {
    const counts = new Map<string, number>();
    for (const ch of txids.join('')) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe([...ALNUM].sort().join(''));
    const mean = (5000 * 25) / 62;
    for (const count of counts.values()) expect(Math.abs(count - mean)).toBeLessThan(mean * 0.3);
  });
});

describe('txid validators', () => {
  it.each([
    ['a', true, false, true],
    ['A'.repeat(25), true, false, true],
    ['A'.repeat(26), false, true, true],
    ['a1'.repeat(17) + 'z', false, true, true],
    ['a'.repeat(36), false, false, false],
    ['', false, false, false],
    ['***', false, false, false],
    ['my_transaction_id', false, false, false],
    ['RP12345678-2019', false, false, false],
    ['abc 123', false, false, false],
  ])('%j: static %s, dynamic %s, any %s', (txid, isStatic, isDynamic, isAny) => {
    expect([isValidStaticTxid(txid), isValidDynamicTxid(txid), isValidTxid(txid)]).toEqual([isStatic, isDynamic, isAny]);
  });
});

describe('newEndToEndId', () => {
  it('is E + ISPB + yyyyMMddHHmm in UTC + 11 alphanumerics', () => {
    const at = new Date('2024-03-05T07:08:59.999Z');
    const id = newEndToEndId('12345678', at);
    expect(id).toHaveLength(32);
    expect(id).toMatch(/^E12345678202403050708[A-Za-z0-9]{11}$/);
    expect(isValidEndToEndId(id)).toBe(true);
  });

  it('uses UTC whatever the local offset', () => {
    const at = new Date('2023-12-31T21:30:00-03:00');
    expect(newEndToEndId('00000000', at).slice(0, 21)).toBe('E00000000202401010030');
  });

  it('does not repeat over 5000 ids in the same minute', () => {
    const at = new Date('2025-01-01T00:00:00Z');
    const ids = Array.from({ length: 5000 }, () => newEndToEndId('60701190', at));
    expect(new Set(ids).size).toBe(5000);
    expect(ids.every(isValidEndToEndId)).toBe(true);
  });

  it.each([
    ['1234567', new Date()],
    ['123456789', new Date()],
    ['ABCDEFGH', new Date()],
    ['12345678', new Date(Number.NaN)],
    ['12345678', new Date('+010000-01-01T00:00:00Z')],
  ])('throws for ISPB %j / date %s', (ispb, at) => {
    expect(() => newEndToEndId(ispb, at)).toThrow();
  });
});

describe('isValidEndToEndId', () => {
  it.each([
    ['E9040088820210128000800123873170', true],
    ['E12345678202009091221kkkkkkkkkkk', true],
    ['E12345678202402291221abcdefghijk', true], // 29 Feb in a leap year
    ['D12345678202009091221kkkkkkkkkkk', false],
    ['e12345678202009091221kkkkkkkkkkk', false],
    ['E12345678202009091221kkkkkkkkkk', false],
    ['E12345678202009091221kkkkkkkkkkkk', false],
    ['E12345678202013091221kkkkkkkkkkk', false], // month 13
    ['E12345678202302291221kkkkkkkkkkk', false], // 29 Feb 2023
    ['E12345678202009092400kkkkkkkkkkk', false], // hour 24
    ['E12345678202009091260kkkkkkkkkkk', false], // minute 60
    ['E1234567A202009091221kkkkkkkkkkk', false],
    ['E12345678202009091221kkkkkkkkk-k', false],
    ['', false],
  ])('%s → %s', (id, expected) => {
    expect(isValidEndToEndId(id)).toBe(expected);
  });
});
