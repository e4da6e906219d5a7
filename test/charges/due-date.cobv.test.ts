import { describe, expect, it } from 'vitest';
import { toCobVPayloadValor, toCobVValor } from '../../src/charges/due-date-cobv.rules.js';
import { amountDue, type DueDateTerms } from '../../src/charges/due-date.rules.js';
import { apiPixConformance } from '../providers/fake-psp-openapi.js';

const full: DueDateTerms = {
  amount: 12_345,
  dueDate: '2026-06-01',
  daysAfterDue: 30,
  rebate: { mode: 'PERCENT', value: 150 },
  discount: { mode: 'FIXED_UNTIL', tiers: [{ date: '2026-05-01', value: 500 }, { date: '2026-06-01', value: 250 }] },
  fine: { mode: 'PERCENT', value: 199 },
  interest: { mode: 'PERCENT_PER_YEAR', value: 1_200 },
};

// BACEN's document has flaws on cobv that a literal validator applies (a per-day discount matching both
// branches of `desconto`'s oneOf; `devedor.cpf`'s pattern written with slashes): the conformance module reads
// them as the document means them (test/providers/fake-psp-openapi.ts), as for the fake PSP's traffic.

/** A whole `PUT /cobv/{txid}` as the api-pix adapter would send it, checked against BACEN's OpenAPI. */
async function violations(terms: DueDateTerms): Promise<string[]> {
  const conformance = await apiPixConformance();
  const req = {
    method: 'PUT',
    path: '/cobv/abcdefghijklmnopqrstuvwxyz0123',
    query: {},
    headers: { 'content-type': 'application/json' },
    body: {
      calendario: { dataDeVencimento: terms.dueDate, validadeAposVencimento: terms.daysAfterDue },
      devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
      valor: toCobVValor(terms),
      chave: '5f84a4c5-c5cb-4599-9f13-7eb4d419dacc',
    },
  };
  const op = conformance.operation(req);
  expect(op).not.toBeNull();
  return conformance.checkRequest(req, op!);
}

describe('toCobVValor: our rules in BACEN modalities', () => {
  it('maps every rule, cents and basis points as \\d{1,10}.\\d{2}', () => {
    expect(toCobVValor(full)).toEqual({
      original: '123.45',
      multa: { modalidade: 2, valorPerc: '1.99' },
      juros: { modalidade: 4, valorPerc: '12.00' },
      abatimento: { modalidade: 2, valorPerc: '1.50' },
      desconto: { modalidade: 1, descontoDataFixa: [{ data: '2026-05-01', valorPerc: '5.00' }, { data: '2026-06-01', valorPerc: '2.50' }] },
    });
    expect(toCobVValor({ amount: 10_000, dueDate: '2026-06-01', daysAfterDue: 0 })).toEqual({ original: '100.00' });
  });

  it.each([
    [{ fine: { mode: 'FIXED', value: 250 } }, { multa: { modalidade: 1, valorPerc: '2.50' } }],
    [{ fine: { mode: 'PERCENT', value: 200 } }, { multa: { modalidade: 2, valorPerc: '2.00' } }],
    [{ interest: { mode: 'AMOUNT_PER_DAY', value: 10 } }, { juros: { modalidade: 1, valorPerc: '0.10' } }],
    [{ interest: { mode: 'PERCENT_PER_DAY', value: 3 } }, { juros: { modalidade: 2, valorPerc: '0.03' } }],
    [{ interest: { mode: 'PERCENT_PER_MONTH', value: 100 } }, { juros: { modalidade: 3, valorPerc: '1.00' } }],
    [{ interest: { mode: 'PERCENT_PER_YEAR', value: 1_200 } }, { juros: { modalidade: 4, valorPerc: '12.00' } }],
    [{ rebate: { mode: 'FIXED', value: 1_000 } }, { abatimento: { modalidade: 1, valorPerc: '10.00' } }],
    [{ rebate: { mode: 'PERCENT', value: 5 } }, { abatimento: { modalidade: 2, valorPerc: '0.05' } }],
    [
      { discount: { mode: 'PERCENT_UNTIL', tiers: [{ date: '2026-05-20', value: 1_000 }] } },
      { desconto: { modalidade: 2, descontoDataFixa: [{ data: '2026-05-20', valorPerc: '10.00' }] } },
    ],
    [{ discount: { mode: 'AMOUNT_PER_DAY_EARLY', value: 50 } }, { desconto: { modalidade: 3, valorPerc: '0.50' } }],
    [{ discount: { mode: 'PERCENT_PER_DAY_EARLY', value: 7 } }, { desconto: { modalidade: 5, valorPerc: '0.07' } }],
  ] as Array<[Partial<DueDateTerms>, object]>)('%j → %j, valid for PUT /cobv', async (rule, expected) => {
    const terms = { amount: 10_000, dueDate: '2026-06-01', daysAfterDue: 30, ...rule };
    expect(toCobVValor(terms)).toEqual({ original: '100.00', ...expected });
    expect(await violations(terms)).toEqual([]);
  });

  it("BACEN's own cobv example (cobBody1) is what our rules give", async () => {
    // valor: original 123.45, multa modalidade 2 15.00, juros modalidade 2 2.00, desconto modalidade 1 30.00 until 2020-11-30
    const terms: DueDateTerms = {
      amount: 12_345,
      dueDate: '2020-12-31',
      daysAfterDue: 30,
      fine: { mode: 'PERCENT', value: 1_500 },
      interest: { mode: 'PERCENT_PER_DAY', value: 200 },
      discount: { mode: 'FIXED_UNTIL', tiers: [{ date: '2020-11-30', value: 3_000 }] },
    };
    expect(toCobVValor(terms)).toEqual({
      original: '123.45',
      multa: { modalidade: 2, valorPerc: '15.00' },
      juros: { modalidade: 2, valorPerc: '2.00' },
      desconto: { modalidade: 1, descontoDataFixa: [{ data: '2020-11-30', valorPerc: '30.00' }] },
    });
    expect(await violations(terms)).toEqual([]);
    expect(await violations(full)).toEqual([]);
  });
});

describe('toCobVPayloadValor: the payer-side valor of a day', () => {
  it('gives the parts that apply and final = amountDue', () => {
    // 2026-06-02, one day late: rebate ⌊12345 × 1.5 %⌋ = 185, fine ⌊245.67⌋ = 245, interest ⌊4.06⌋ = 4
    expect(toCobVPayloadValor(amountDue(full, '2026-06-02')!)).toEqual({
      original: '123.45',
      multa: '2.45',
      juros: '0.04',
      abatimento: '1.85',
      final: '124.09',
    });
    // on the due date: the tier of 2026-06-01 (R$ 2,50)
    expect(toCobVPayloadValor(amountDue(full, '2026-06-01')!)).toEqual({ original: '123.45', abatimento: '1.85', desconto: '2.50', final: '119.10' });
    expect(toCobVPayloadValor(amountDue({ amount: 100, dueDate: '2026-06-01', daysAfterDue: 0 }, '2026-06-01')!)).toEqual({
      original: '1.00',
      final: '1.00',
    });
  });
});
