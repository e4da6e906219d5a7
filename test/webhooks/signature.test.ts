import { createHmac } from 'node:crypto';
import { describe, it, expect } from 'vitest';
import { signatureHeader, verifySignature } from '../../src/webhooks/signature.crypto.js';

const secret = 'whsec_9f2c4e7a1b3d5f60718293a4b5c6d7e8';
const body = JSON.stringify({ id: 'evt_abc', event: 'CHARGE_PAID', createdAt: '2026-11-22T18:00:00.000Z', data: { amount: 1000, name: 'João' } });
const t = 1_795_000_000;

describe('signatureHeader', () => {
  it('has the exact format t=<seconds>,v1=<64 lower-case hex>, no space', () => {
    const header = signatureHeader(secret, body, t);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(header.startsWith(`t=${t},v1=`)).toBe(true);
  });

  it('is the HMAC-SHA256 of "<t>.<raw body>" keyed with the whole whsec_ string', () => {
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(signatureHeader(secret, body, t)).toBe(`t=${t},v1=${expected}`);
  });

  it('signs the UTF-8 bytes of non-ASCII bodies', () => {
    const expected = createHmac('sha256', Buffer.from(secret)).update(Buffer.from(`${t}.${body}`, 'utf8')).digest('hex');
    expect(signatureHeader(secret, body, t).split('v1=')[1]).toBe(expected);
  });

  it('refuses a non-integer timestamp', () => {
    expect(() => signatureHeader(secret, body, 1.5)).toThrow(RangeError);
  });
});

describe('verifySignature', () => {
  const header = signatureHeader(secret, body, t);

  it('accepts a genuine delivery (string or Buffer payload)', () => {
    expect(verifySignature({ payload: body, header, secret, now: t })).toBe(true);
    expect(verifySignature({ payload: Buffer.from(body, 'utf8'), header, secret, now: t + 10 })).toBe(true);
  });

  it('rejects a tampered body', () => {
    expect(verifySignature({ payload: body.replace('1000', '100000'), header, secret, now: t })).toBe(false);
    expect(verifySignature({ payload: `${body} `, header, secret, now: t })).toBe(false);
  });

  it('rejects the wrong secret', () => {
    expect(verifySignature({ payload: body, header, secret: `${secret}x`, now: t })).toBe(false);
  });

  it('rejects a timestamp edited to look fresh (t is part of what is signed)', () => {
    const forged = header.replace(`t=${t}`, `t=${t + 1000}`);
    expect(verifySignature({ payload: body, header: forged, secret, now: t + 1000 })).toBe(false);
  });

  it('rejects a timestamp more than 300 s old, accepts exactly 300 s', () => {
    expect(verifySignature({ payload: body, header, secret, now: t + 300 })).toBe(true);
    expect(verifySignature({ payload: body, header, secret, now: t + 301 })).toBe(false);
  });

  it('rejects a timestamp too far in the future', () => {
    expect(verifySignature({ payload: body, header, secret, now: t - 300 })).toBe(true);
    expect(verifySignature({ payload: body, header, secret, now: t - 301 })).toBe(false);
  });

  it('honours a custom tolerance and defaults now to the clock', () => {
    expect(verifySignature({ payload: body, header, secret, now: t + 600, toleranceSeconds: 600 })).toBe(true);
    const fresh = signatureHeader(secret, body, Math.floor(Date.now() / 1000));
    expect(verifySignature({ payload: body, header: fresh, secret })).toBe(true);
    expect(verifySignature({ payload: body, header, secret })).toBe(false); // t is long past
  });

  it('accepts when any of several v1 entries matches (secret rotation)', () => {
    const good = header.split('v1=')[1];
    const other = createHmac('sha256', 'whsec_old').update(`${t}.${body}`).digest('hex');
    expect(verifySignature({ payload: body, header: `t=${t},v1=${other},v1=${good}`, secret, now: t })).toBe(true);
    expect(verifySignature({ payload: body, header: `t=${t},v1=${other}`, secret, now: t })).toBe(false);
  });

  it.each([
    '',
    'garbage',
    `v1=${'a'.repeat(64)}`,
    `t=${t}`,
    `t=${t},v1=short`,
    `t=abc,v1=${'a'.repeat(64)}`,
    `t=${t},t=${t},v1=${'a'.repeat(64)}`,
  ])('rejects a malformed header %j without throwing', (bad) => {
    expect(verifySignature({ payload: body, header: bad, secret, now: t })).toBe(false);
  });
});
