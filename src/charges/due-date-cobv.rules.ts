import { formatCents } from '../pix/amount.js';
import type { CobVDesconto, CobVPayloadValor, CobVValor } from '../providers/port/cobv.port.js';
import type { AmountDue, Discount, DueDateTerms, Fine, Interest, Rebate } from './due-date.rules.js';

// Our rules in BACEN's API Pix 2.9.0 terms (`CobVValor` of `PUT /cobv/{txid}`, `CobVPayloadValor` of the
// payer-side payload), one mapping for the api-pix adapter and the simulator. `valorPerc` is reais for an
// amount and percent for a percentage, both `\d{1,10}\.\d{2}`: cents and basis points print alike.
// The shapes themselves are the provider port's (src/providers/port/cobv.port.ts).

// Modality tables of `CobVValor` (multa 1–2, juros 1–4 in calendar days, abatimento 1–2, desconto 1, 2, 3, 5).
const FINE: Record<Fine['mode'], 1 | 2> = { FIXED: 1, PERCENT: 2 };
const REBATE: Record<Rebate['mode'], 1 | 2> = { FIXED: 1, PERCENT: 2 };
const INTEREST: Record<Interest['mode'], 1 | 2 | 3 | 4> = {
  AMOUNT_PER_DAY: 1, // Valor (dias corridos)
  PERCENT_PER_DAY: 2, // Percentual ao dia (dias corridos)
  PERCENT_PER_MONTH: 3, // Percentual ao mês (dias corridos)
  PERCENT_PER_YEAR: 4, // Percentual ao ano (dias corridos)
};

function desconto(discount: Discount): CobVDesconto {
  switch (discount.mode) {
    case 'FIXED_UNTIL': // Valor fixo até a[s] data[s] informada[s]
    case 'PERCENT_UNTIL': // Percentual até a data informada
      return {
        modalidade: discount.mode === 'FIXED_UNTIL' ? 1 : 2,
        descontoDataFixa: discount.tiers.map((t) => ({ data: t.date, valorPerc: formatCents(t.value) })),
      };
    case 'AMOUNT_PER_DAY_EARLY': // Valor por antecipação dia corrido
      return { modalidade: 3, valorPerc: formatCents(discount.value) };
    case 'PERCENT_PER_DAY_EARLY': // Percentual por antecipação dia corrido
      return { modalidade: 5, valorPerc: formatCents(discount.value) };
  }
}

/** `valor` of `PUT /cobv/{txid}`: the amount and the four rules, absent rules left out. */
export function toCobVValor(terms: DueDateTerms): CobVValor {
  const valor: CobVValor = { original: formatCents(terms.amount) };
  if (terms.fine) valor.multa = { modalidade: FINE[terms.fine.mode], valorPerc: formatCents(terms.fine.value) };
  if (terms.interest) valor.juros = { modalidade: INTEREST[terms.interest.mode], valorPerc: formatCents(terms.interest.value) };
  if (terms.rebate) valor.abatimento = { modalidade: REBATE[terms.rebate.mode], valorPerc: formatCents(terms.rebate.value) };
  if (terms.discount) valor.desconto = desconto(terms.discount);
  return valor;
}

/** `valor` of the payer-side `CobVPayload` on a day: the parts that apply (as BACEN's example) and `final`. */
export function toCobVPayloadValor(due: AmountDue): CobVPayloadValor {
  const { original, rebate, discount, fine, interest } = due.breakdown;
  return {
    original: formatCents(original),
    ...(fine > 0 ? { multa: formatCents(fine) } : {}),
    ...(interest > 0 ? { juros: formatCents(interest) } : {}),
    ...(rebate > 0 ? { abatimento: formatCents(rebate) } : {}),
    ...(discount > 0 ? { desconto: formatCents(discount) } : {}),
    final: formatCents(due.amountDue),
  };
}
