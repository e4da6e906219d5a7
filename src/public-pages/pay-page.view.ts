import type { Lang, Texts } from './page-text.rules.js';
import { esc } from './page-layout.view.js';
import { formatBrl } from './reais.rules.js';
import type { PayPageRow } from './pages.sql.js';

const spTime = new Map<Lang, Intl.DateTimeFormat>();
function when(d: Date, lang: Lang): string {
  let f = spTime.get(lang);
  if (!f) spTime.set(lang, f = new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : 'pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' }));
  return f.format(d);
}

/** `completionUrl` with `checkoutId=<id>` appended to its query (docs/contract/checkouts.md#payment-page). */
export function completionHref(completionUrl: string, checkoutId: string): string {
  const url = new URL(completionUrl);
  url.searchParams.append('checkoutId', checkoutId);
  return url.toString();
}

function lines(k: PayPageRow, t: Texts): string {
  const rows = k.items.map((i) => `<tr><td>${esc(i.name)}</td><td class="num">${i.quantity}</td><td class="num">${formatBrl(i.quantity * i.unitPrice)}</td></tr>`).join('');
  return `<table class="lines">
      <caption class="visually-hidden">${esc(t.order)}</caption>
      <thead><tr><th scope="col">${esc(t.item)}</th><th scope="col" class="num">${esc(t.quantity)}</th><th scope="col" class="num">${esc(t.price)}</th></tr></thead>
      <tbody>${rows}</tbody>
      <tfoot><tr><th scope="row" colspan="2">${esc(t.total)}</th><td class="num total">${formatBrl(k.amount)}</td></tr></tfoot>
    </table>`;
}

/**
 * Two ways to pay, the copy-and-paste code first: on a phone the payer pays from the phone showing the page and
 * cannot scan its own screen. On a wide screen the stylesheet shows the QR first (the payer scans it with a phone);
 * only the order on screen changes, so the focus order (button, code) is the same on both.
 */
function pending(k: PayPageRow, t: Texts, lang: Lang, simulator: boolean, self: string): string {
  const secondsLeft = Math.max(0, Math.floor((k.expires_at.getTime() - Date.now()) / 1000));
  const hms = [Math.floor(secondsLeft / 3600), Math.floor(secondsLeft / 60) % 60, secondsLeft % 60].map((n) => String(n).padStart(2, '0')).join(':');
  return `<section class="status" aria-labelledby="status-title">
      <h2 id="status-title" class="visually-hidden">${esc(t.statusLabel)}</h2>
      <p class="badge waiting"><span class="dot" aria-hidden="true"></span>${esc(t.waiting)}</p>
      <p class="time-left">${esc(t.timeLeft)}: <time class="countdown" datetime="${k.expires_at.toISOString()}" data-expires-at="${k.expires_at.toISOString()}">${hms}</time></p>
    </section>
    <section class="pay" aria-labelledby="pay-title">
      <h2 id="pay-title">${esc(t.payHeading)}</h2>
      <div class="ways">
        <div class="way copy-way">
          <h3 id="copy-title">${esc(t.copyTitle)}</h3>
          <p class="muted">${esc(t.copyHelp)}</p>
          <button type="button" class="button copy" data-copy="brcode" data-copied="${esc(t.copied)}" hidden>${esc(t.copy)}</button>
          <div id="brcode" class="code" role="textbox" aria-readonly="true" aria-multiline="true" aria-label="${esc(t.codeLabel)}" tabindex="0">${esc(k.br_code)}</div>
        </div>
        <div class="way qr-way">
          <h3>${esc(t.qrTitle)}</h3>
          <p class="muted">${esc(t.scan)}</p>
          <img class="qr" src="${esc(k.qr_png)}" alt="${esc(t.qrAlt)}" width="240" height="240">
        </div>
      </div>
    </section>
    <section class="waiting-help">
      <p class="muted">${esc(t.expiresAt(when(k.expires_at, lang)))} ${esc(t.waitingHelp)}</p>
      <p><a class="link" href="${esc(self)}">${esc(t.checkAgain)}</a></p>
      ${backToStore(k, t)}
    </section>
    ${simulator ? `<form class="simulate" method="post" action="/pay/${esc(k.id)}/simulate${lang === 'en' ? '?lang=en' : ''}">
      <button type="submit" class="button secondary">${esc(t.simulate)}</button>
      <p class="muted">${esc(t.simulateHelp)}</p>
    </form>` : ''}`;
}

/** What a payer keeps as proof: the amount, when it was paid and the PIX's end-to-end id (the one their bank shows). */
function receipt(k: PayPageRow, t: Texts, lang: Lang): string {
  const rows: Array<[string, string]> = [[t.paidAmount, esc(formatBrl(k.amount))]];
  if (k.paid_at) rows.push([t.paidAtLabel, esc(when(k.paid_at, lang))]);
  if (k.end2end_id) rows.push([t.end2endId, `<code>${esc(k.end2end_id)}</code>`]);
  return `<dl class="receipt">${rows.map(([term, value]) => `<div><dt>${esc(term)}</dt><dd>${value}</dd></div>`).join('')}</dl>`;
}

/**
 * The expired page's button that starts a new checkout from its link (docs/contract/checkouts.md#payment-page): the link
 * page's own form POST when the link asks the payer nothing, so one press lands on the new checkout's page; else the link
 * page, where the payer types what it asks. A form either way: a button, without JavaScript too.
 */
function newCheckoutButton(linkId: string, direct: boolean, t: Texts, lang: Lang): string {
  const button = `<button type="submit" class="button">${esc(t.newCheckout)}</button>`;
  if (direct) return `<form class="new-checkout" method="post" action="/l/${esc(linkId)}${lang === 'en' ? '?lang=en' : ''}">${button}</form>`;
  return `<form class="new-checkout" method="get" action="/l/${esc(linkId)}">${lang === 'en' ? '<input type="hidden" name="lang" value="en">' : ''}${button}</form>`;
}

/** `returnUrl`: the way back to the store for a payer who does not pay (docs/contract/checkouts.md#payment-page). */
const backToStore = (k: PayPageRow, t: Texts): string =>
  k.return_url ? `<p><a class="link back" href="${esc(k.return_url)}" rel="noreferrer">${esc(t.backToStore)}</a></p>` : '';

function settled(k: PayPageRow, t: Texts, lang: Lang): string {
  const done = (cls: string, title: string, help: string, extra = '') =>
    `<section class="outcome ${cls}" aria-labelledby="outcome-title"><h2 id="outcome-title">${esc(title)}</h2><p>${esc(help)}</p>${extra}</section>`;
  switch (k.status) {
    case 'PAID': {
      const href = k.completion_url ? completionHref(k.completion_url, k.id) : null;
      return done('paid', t.paid, t.paidHelp, receipt(k, t, lang) + (href
        ? `<p><a class="button completion" href="${esc(href)}" data-auto-follow="3">${esc(t.continue)}</a></p><p class="muted">${esc(t.redirecting)}</p>` : ''));
    }
    case 'EXPIRED':
      return done('expired', t.expired, t.expiredHelp,
        (k.payment_link_id ? newCheckoutButton(k.payment_link_id, k.link_asks_nothing === true, t, lang) : '') + backToStore(k, t));
    case 'REFUNDED':
      return done('refunded', t.refunded, t.refundedHelp);
    default:
      return done('disputed', t.disputed, t.disputedHelp);
  }
}

/**
 * The `<main>` of the payment page: the same markup serves the first load and the live update (pages.js swaps it).
 * Once settled, the outcome (with the receipt) comes before the order: it is what the payer came back to see.
 */
export function payPageMain(k: PayPageRow, t: Texts, lang: Lang, o: { simulator: boolean; self: string }): string {
  const order = `<section class="order" aria-labelledby="order-title">
      <h2 id="order-title">${esc(t.order)}</h2>
      ${k.description ? `<p class="muted">${esc(k.description)}</p>` : ''}
      ${lines(k, t)}
    </section>`;
  return `<main id="main" data-checkout="${esc(k.id)}" data-status="${k.status}" data-lang="${lang}">
    <h1>${esc(t.payTitle)}</h1>
    ${k.first_name ? `<p class="hello">${esc(t.hello(k.first_name))}</p>` : ''}
    ${k.status === 'PENDING' ? order + pending(k, t, lang, o.simulator, o.self) : settled(k, t, lang) + order}
  </main>`;
}

/** <head> extras: without JavaScript a waiting page reloads itself; a paid one with a completion URL moves there after 3 s. */
export function payPageHead(k: PayPageRow): string {
  if (k.status === 'PENDING') return '<noscript><meta http-equiv="refresh" content="10"></noscript>';
  if (k.status === 'PAID' && k.completion_url) return `<noscript><meta http-equiv="refresh" content="3;url=${esc(completionHref(k.completion_url, k.id))}"></noscript>`;
  return '';
}
