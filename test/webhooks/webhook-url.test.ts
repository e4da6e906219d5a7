import { describe, it, expect } from 'vitest';
import {
  normalizeWebhookUrl,
  resolvePublicTarget,
  TargetRefusedError,
  type Resolver,
} from '../../src/webhooks/webhook-url.rules.js';

const strict = { allowPrivate: false };
const lax = { allowPrivate: true };

describe('normalizeWebhookUrl', () => {
  it.each([
    ['https://Example.COM/hook', 'https://example.com/hook'],
    ['https://example.com', 'https://example.com/'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['https://example.com:8443/a?b=1', 'https://example.com:8443/a?b=1'],
    ['  https://example.com/x  ', 'https://example.com/x'],
    ['https://example.com/a/../b', 'https://example.com/b'],
    ['https://bücher.example/x', 'https://xn--bcher-kva.example/x'],
    ['https://8.8.8.8/hook', 'https://8.8.8.8/hook'],
    ['https://[2606:4700:4700:0::1111]/h', 'https://[2606:4700:4700::1111]/h'],
  ])('accepts %s as %s', (raw, normalised) => {
    expect(normalizeWebhookUrl(raw, strict)).toEqual({ ok: true, url: normalised });
  });

  it.each([
    ['http://example.com/hook', 'must be an https URL'],
    ['ftp://example.com/hook', 'must be an https URL'],
    ['javascript:alert(1)', 'must be an https URL'],
    ['/relative/path', 'must be a valid URL'],
    ['example.com/hook', 'must be a valid URL'],
    ['', 'must be a valid URL'],
    ['https://', 'must be a valid URL'],
    ['https://user:pass@example.com/', 'must not contain credentials'],
    ['https://user@example.com/', 'must not contain credentials'],
    ['https://:pass@example.com/', 'must not contain credentials'],
    [`https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`, 'must be at most 2048 characters'],
    ['https://2130706433/', 'must be a public address'],
    ['https://0x7f.1/', 'must be a public address'],
    ['https://0x7f000001/', 'must be a public address'],
    ['https://0177.0.0.1/', 'must be a public address'],
    ['https://127.1/', 'must be a public address'],
    ['https://[::1]/', 'must be a public address'],
    ['https://[::ffff:127.0.0.1]/', 'must be a public address'],
    ['https://169.254.169.254/latest', 'must be a public address'],
    ['https://10.0.0.1/hook', 'must be a public address'],
    ['https://localhost/hook', 'must be a public address'],
    ['https://api.localhost./hook', 'must be a public address'],
  ])('rejects %s: %s', (raw, reason) => {
    expect(normalizeWebhookUrl(raw, strict)).toEqual({ ok: false, reason });
  });

  it('accepts exactly 2048 characters', () => {
    const raw = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
    expect(raw).toHaveLength(2048);
    expect(normalizeWebhookUrl(raw, strict)).toEqual({ ok: true, url: raw });
  });

  it('measures the normalised form too (percent-encoding can grow it past 2048)', () => {
    const raw = `https://example.com/${'é'.repeat(1000)}`; // 1020 chars raw, each é becomes %C3%A9
    expect(raw.length).toBeLessThan(2048);
    expect(normalizeWebhookUrl(raw, strict)).toEqual({ ok: false, reason: 'must be at most 2048 characters' });
  });

  it('allowPrivate lifts the address checks and allows http, but not other schemes or credentials', () => {
    expect(normalizeWebhookUrl('http://127.0.0.1:8080/h', lax)).toEqual({ ok: true, url: 'http://127.0.0.1:8080/h' });
    expect(normalizeWebhookUrl('https://2130706433/', lax)).toEqual({ ok: true, url: 'https://127.0.0.1/' });
    expect(normalizeWebhookUrl('http://localhost:3000/h', lax)).toEqual({ ok: true, url: 'http://localhost:3000/h' });
    expect(normalizeWebhookUrl('ftp://example.com/', lax)).toEqual({ ok: false, reason: 'must be an https URL' });
    expect(normalizeWebhookUrl('http://u:p@127.0.0.1/', lax)).toEqual({ ok: false, reason: 'must not contain credentials' });
  });

  it('normalises equivalent spellings to one stored form (for duplicate detection)', () => {
    const forms = ['https://EXAMPLE.com:443/hook', 'https://example.com/./hook', 'https://example.com/hook'];
    const urls = forms.map((f) => normalizeWebhookUrl(f, strict)).map((r) => (r.ok ? r.url : r.reason));
    expect(new Set(urls)).toEqual(new Set(['https://example.com/hook']));
  });
});

const stub = (answers: Record<string, string[]>): Resolver => async (host) => {
  const list = answers[host];
  if (list === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('resolvePublicTarget', () => {
  it('accepts a public answer and returns it for pinning', async () => {
    const resolver = stub({ 'hooks.example': ['93.184.216.34'] });
    await expect(resolvePublicTarget('https://hooks.example/x', { ...strict, resolver })).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('returns the first of several public answers, v6 included', async () => {
    const resolver = stub({ 'hooks.example': ['2606:4700:4700::1111', '1.1.1.1'] });
    await expect(resolvePublicTarget('https://hooks.example/', { ...strict, resolver })).resolves.toEqual({
      address: '2606:4700:4700::1111',
      family: 6,
    });
  });

  it.each([
    [['8.8.8.8', '10.0.0.5']],
    [['8.8.8.8', '::ffff:127.0.0.1']],
    [['169.254.169.254', '8.8.8.8']],
    [['2606:4700:4700::1111', 'fd00::1']],
  ])('rejects when any answer among several is private: %j', async (answers) => {
    const resolver = stub({ 'hooks.example': answers });
    const attempt = resolvePublicTarget('https://hooks.example/', { ...strict, resolver });
    await expect(attempt).rejects.toBeInstanceOf(TargetRefusedError);
    await expect(attempt).rejects.toThrow(/non-public address/);
  });

  it('rejects an empty answer with a plain (network) error', async () => {
    const attempt = resolvePublicTarget('https://hooks.example/', { ...strict, resolver: stub({ 'hooks.example': [] }) });
    await expect(attempt).rejects.toThrow('could not resolve hooks.example (no addresses)');
    await expect(attempt).rejects.not.toBeInstanceOf(TargetRefusedError);
  });

  it('reports a resolution failure with its code', async () => {
    await expect(resolvePublicTarget('https://nowhere.example/', { ...strict, resolver: stub({}) })).rejects.toThrow(
      'could not resolve nowhere.example (ENOTFOUND)',
    );
  });

  it('refuses a resolver answer that is not an IP literal (it would be resolved again)', async () => {
    const resolver = stub({ 'hooks.example': ['internal.corp'] });
    await expect(resolvePublicTarget('https://hooks.example/', { ...strict, resolver })).rejects.toBeInstanceOf(
      TargetRefusedError,
    );
  });

  it('allowPrivate accepts private answers', async () => {
    const resolver = stub({ 'hook.test': ['10.0.0.5', '127.0.0.1'] });
    await expect(resolvePublicTarget('http://hook.test:8080/', { ...lax, resolver })).resolves.toEqual({
      address: '10.0.0.5',
      family: 4,
    });
  });

  it('skips DNS for IP-literal hosts', async () => {
    const resolver: Resolver = async () => {
      throw new Error('resolver must not be called');
    };
    await expect(resolvePublicTarget('https://8.8.8.8/', { ...strict, resolver })).resolves.toEqual({
      address: '8.8.8.8',
      family: 4,
    });
    await expect(resolvePublicTarget('https://[::1]:9/', { ...lax, resolver })).resolves.toEqual({
      address: '::1',
      family: 6,
    });
    await expect(resolvePublicTarget('https://2130706433/', { ...strict, resolver })).rejects.toBeInstanceOf(
      TargetRefusedError,
    );
  });

  it('re-applies the URL rules at delivery time', async () => {
    const resolver = stub({ 'hooks.example': ['8.8.8.8'] });
    await expect(resolvePublicTarget('http://hooks.example/', { ...strict, resolver })).rejects.toThrow(
      'url must be an https URL',
    );
  });
});
