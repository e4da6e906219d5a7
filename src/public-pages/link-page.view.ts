import type { PaymentLinkRow } from '../payment-links/payment-link.sql.js';
import type { PayerField, PayerProblem } from '../payment-links/link-payer.rules.js';
import type { Unavailable } from '../payment-links/link-checkout.service.js';
import { cartAmount } from '../checkouts/checkout.rules.js';
import type { FastifyReply } from 'fastify';
import type { Lang, Texts } from './page-text.rules.js';
import { esc, otherLang, renderPage, type Store } from './page-layout.view.js';
import { formatBrl } from './reais.rules.js';

export type Typed = Partial<Record<PayerField, string>>;

const INPUTS: Record<Exclude<PayerField, 'amount'>, { label: (t: Texts) => string; type: string; autocomplete: string; inputmode?: string }> = {
  name: { label: (t) => t.nameLabel, type: 'text', autocomplete: 'name' },
  email: { label: (t) => t.emailLabel, type: 'email', autocomplete: 'email' },
  taxId: { label: (t) => t.taxIdLabel, type: 'text', autocomplete: 'off', inputmode: 'numeric' },
  phone: { label: (t) => t.phoneLabel, type: 'tel', autocomplete: 'tel' },
};

function problemText(t: Texts, field: PayerField, problem: PayerProblem, link: PaymentLinkRow): string {
  const p = t.problems;
  switch (problem) {
    case 'belowMin': return p.belowMin(formatBrl(link.amount_min!));
    case 'aboveMax': return p.aboveMax(formatBrl(link.amount_max!));
    case 'invalid':
      return field === 'email' ? p.invalidEmail : field === 'phone' ? p.invalidPhone : field === 'amount' ? p.invalidAmount : p.invalid;
    default: return p[problem];
  }
}

/** One labelled input; a refused one says why beside it (aria-describedby) and keeps what was typed. */
function input(field: PayerField, label: string, o: { type: string; autocomplete: string; inputmode?: string; hint?: string },
  typed: Typed, error: string | undefined): string {
  const ids = [o.hint ? `${field}-hint` : '', error ? `${field}-error` : ''].filter(Boolean).join(' ');
  return `<div class="field${error ? ' invalid' : ''}">
      <label for="${field}">${esc(label)}</label>
      ${o.hint ? `<p id="${field}-hint" class="hint">${esc(o.hint)}</p>` : ''}
      <input id="${field}" name="${field}" type="${o.type}" autocomplete="${o.autocomplete}"${o.inputmode ? ` inputmode="${o.inputmode}"` : ''}
        value="${esc(typed[field])}" required${ids ? ` aria-describedby="${ids}"` : ''}${error ? ' aria-invalid="true"' : ''}>
      ${error ? `<p id="${field}-error" class="error">${esc(error)}</p>` : ''}
    </div>`;
}

export interface LinkPageState {
  link: PaymentLinkRow;
  t: Texts;
  lang: Lang;
  typed: Typed;
  problems: Partial<Record<PayerField, PayerProblem>>;
  unavailable: Unavailable | null;
}

/** The `<main>` of the link page: what is sold and for how much, and the form that starts a checkout. */
export function linkPageMain(s: LinkPageState): string {
  const { link, t, lang, typed, problems } = s;
  const error = (f: PayerField) => (problems[f] ? problemText(t, f, problems[f]!, link) : undefined);
  const price = link.items
    ? `<table class="lines"><caption class="visually-hidden">${esc(t.order)}</caption>
        <thead><tr><th scope="col">${esc(t.item)}</th><th scope="col" class="num">${esc(t.quantity)}</th><th scope="col" class="num">${esc(t.price)}</th></tr></thead>
        <tbody>${link.items.map((i) => `<tr><td>${esc(i.name)}</td><td class="num">${i.quantity}</td><td class="num">${formatBrl(i.quantity * i.unitPrice)}</td></tr>`).join('')}</tbody>
        <tfoot><tr><th scope="row" colspan="2">${esc(t.total)}</th><td class="num total">${formatBrl(cartAmount(link.items))}</td></tr></tfoot></table>`
    : link.amount !== null ? `<p class="price">${esc(t.total)}: <strong class="total">${formatBrl(link.amount)}</strong></p>` : '';
  const fields = [
    ...(link.amount_min !== null ? [input('amount', t.amountLabel, {
      type: 'text', autocomplete: 'transaction-amount', inputmode: 'decimal', hint: t.amountHint(formatBrl(link.amount_min), formatBrl(link.amount_max!)),
    }, typed, error('amount'))] : []),
    ...link.customer_fields.map((f) => input(f, INPUTS[f].label(t), INPUTS[f], typed, error(f))),
  ];
  const customer = link.customer_fields.length ? `<fieldset><legend>${esc(t.yourData)}</legend>${fields.slice(link.amount_min !== null ? 1 : 0).join('')}</fieldset>` : '';
  const action = `/l/${esc(link.id)}${lang === 'en' ? '?lang=en' : ''}`;
  const form = s.unavailable
    ? `<p class="notice" role="status">${esc(t.unavailable[s.unavailable])}</p>`
    : `<form method="post" action="${action}" novalidate>
      ${Object.keys(problems).length ? `<p class="error-summary" role="alert">${esc(t.fixErrors)}</p>` : ''}
      ${link.amount_min !== null ? fields[0] : ''}
      ${customer}
      <button type="submit" class="button">${esc(t.linkPay)}</button>
    </form>`;
  return `<main id="main">
    <h1>${esc(link.name)}</h1>
    ${link.description ? `<p class="muted">${esc(link.description)}</p>` : ''}
    ${price}
    ${form}
  </main>`;
}

/** The whole link page: what a payer opens at /l/{id}, and what the dashboard's preview shows of a draft (`preview`). */
export function renderLinkPage(reply: FastifyReply, status: number, s: LinkPageState & { store: Store; preview?: string }): FastifyReply {
  return renderPage(reply, status, {
    lang: s.lang, t: s.t, title: s.link.name, store: s.store, langHref: otherLang(`/l/${s.link.id}`, s.lang), preview: s.preview,
    body: linkPageMain(s),
  });
}
