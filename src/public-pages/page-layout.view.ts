import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { logoUrl } from '../branding/branding.service.js';
import { storeName } from '../merchants/merchant.service.js';
import type { Lang, Texts } from './page-text.rules.js';
import type { BrandRow } from './pages.sql.js';

/** Text for HTML: every value that came from a merchant or a payer goes through this. */
export const esc = (value: unknown): string =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface Store {
  name: string;
  color: string | null;
  logoUrl: string | null;
}

/**
 * The store as its pages show it: the branding's name, else the store name. The logo loads from this very origin
 * (a path, whatever PUBLIC_URL says: CSP img-src 'self'), or from its data URL in a preview of one not saved yet.
 */
export const storeOf = (row: BrandRow & { logo_data_url?: string | null }): Store => ({
  name: row.display_name ?? storeName(row) ?? row.user_name,
  color: row.primary_color,
  logoUrl: row.logo_data_url ?? (row.logo_id ? logoUrl('', row.logo_id) : null),
});

/** `path` in the other language (the footer's switch). */
export const otherLang = (path: string, lang: Lang) => `${path}?lang=${lang === 'en' ? 'pt' : 'en'}`;
export const withLang = (path: string, lang: Lang) => (lang === 'en' ? `${path}?lang=en` : path);

const DEFAULT_COLOR = '#0b6e4f';

/** Black or white text, whichever reads better on the brand colour (WCAG relative luminance). */
function textOn(hex: string): string {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05) ? '#111111' : '#ffffff';
}

/**
 * The public pages' security headers (docs/contract/checkouts.md#payment-page): no inline script (the one script is a
 * static file), the brand colour in a <style> allowed by a per-response nonce, images from Pixgate or data: URLs
 * (the QR code), no framing, no referrer leaving with the payer, nothing cached.
 */
export function pageHeaders(reply: FastifyReply, nonce: string): FastifyReply {
  return reply
    .header('content-security-policy', `default-src 'none'; script-src 'self'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data:; `
      + "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .type('text/html; charset=utf-8');
}

export interface PageParts {
  lang: Lang;
  t: Texts;
  title: string;
  store: Store | null;
  body: string;
  /** Extra <head> content (the no-script refresh, a redirect). */
  head?: string;
  /** The same page in the other language. */
  langHref: string;
  /**
   * A draft shown in the dashboard (docs/checkouts.md#previews): a notice that nothing is charged, no script, and the
   * language switch without a target (the draft has no address of its own to switch).
   */
  preview?: string;
}

export function renderPage(reply: FastifyReply, status: number, p: PageParts): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  const color = p.store?.color ?? DEFAULT_COLOR;
  // The logo's alt is empty: the store's name is written beside it, and a screen reader would say it twice.
  const header = p.store ? `<header class="store"><div class="column">
    ${p.store.logoUrl ? `<img class="logo" src="${esc(p.store.logoUrl)}" alt="">` : ''}
    <span class="store-name">${esc(p.store.name)}</span>
  </div></header>` : '';
  const html = `<!doctype html>
<html lang="${p.t.htmlLang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(p.title)}${p.store ? ` · ${esc(p.store.name)}` : ''}</title>
<link rel="stylesheet" href="/pay/assets/pages.css">
<style nonce="${nonce}">:root{--brand:${color};--brand-text:${textOn(color)}}</style>
${p.preview === undefined ? '<script src="/pay/assets/pages.js" defer></script>' : ''}
${p.head ?? ''}
</head>
<body>
${p.preview === undefined ? '' : `<p class="preview-notice" role="note">${esc(p.preview)}</p>`}
${header}
${p.body}
<p id="announce" class="visually-hidden" aria-live="polite"></p>
<footer class="column">
  <p>${esc(p.t.poweredBy)}</p>
  <nav aria-label="${esc(p.t.language)}"><a${p.preview === undefined ? ` href="${esc(p.langHref)}"` : ''} lang="${p.lang === 'en' ? 'pt-BR' : 'en'}">${esc(p.t.otherLang)}</a></nav>
</footer>
</body>
</html>`;
  return pageHeaders(reply, nonce).code(status).send(html);
}
