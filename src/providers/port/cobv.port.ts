// What a due-date charge (BACEN `cobv`) carries across the provider port: BACEN's API Pix 2.9.0 shapes of
// `PUT /cobv/{txid}` (`CobVValor`) and of the payer-side payload (`CobVPayloadValor`), and the parts of a
// paid amount. Types only, importing nothing: the core's pure rules (src/charges/due-date*.ts, which the
// dashboard bundles too) and the adapters share them without either depending on the other.

/** `{modalidade, valorPerc}` of `multa`, `juros` and `abatimento`; `valorPerc` is `\d{1,10}\.\d{2}`. */
export interface CobVRule<M extends number> {
  modalidade: M;
  valorPerc: string;
}

export type CobVDesconto =
  | { modalidade: 1 | 2; descontoDataFixa: { data: string; valorPerc: string }[] }
  | CobVRule<3 | 5>;

/** `valor` of `PUT /cobv/{txid}`: the original amount and the rules, absent ones left out. */
export interface CobVValor {
  original: string;
  multa?: CobVRule<1 | 2>;
  juros?: CobVRule<1 | 2 | 3 | 4>;
  abatimento?: CobVRule<1 | 2>;
  desconto?: CobVDesconto;
}

/** `valor` of the payer-side `CobVPayload` on a day: the parts that apply and `final`. */
export interface CobVPayloadValor {
  original: string;
  multa?: string;
  juros?: string;
  abatimento?: string;
  desconto?: string;
  final: string;
}

/**
 * What an amount paid for a due-date charge is made of, in cents: `original − rebate − discount + fine +
 * interest` (BACEN's `componentesValor` of a received PIX: `original`, `abatimento`, `desconto`, `multa`, `juros`).
 */
export interface AmountBreakdown {
  original: number;
  rebate: number;
  discount: number;
  fine: number;
  interest: number;
}
