/** `R$ 1.234,56` from integer cents: integer arithmetic only, no float ever touches the amount. */
export function formatBrl(cents: number): string {
  const reais = Math.trunc(cents / 100);
  const rest = String(cents % 100).padStart(2, '0');
  return `R$ ${String(reais).replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${rest}`;
}

// "1.234,56", "1234,56", "1.234" (pt-BR, dots group thousands), "1234.56" (a dot with one or two decimals), "1,234.56".
const PT_BR = /^(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?$/;
const DOT_DECIMAL = /^(\d+)\.(\d{1,2})$/;
const EN_GROUPED = /^(\d{1,3}(?:,\d{3})+)(?:\.(\d{1,2}))?$/; // "1,234.56" typed on an English page
const MAX_REAIS_DIGITS = 9; // R$ 999.999.999: above any charge, and exact in cents as a number

/**
 * Reais typed by a payer to exact cents (docs/contract/checkouts.md#link-page), read from the text: never through a
 * float. Null when it is not an amount; anything above R$ 999.999.999,99 reads as that ceiling, refused by the range.
 */
export function parseReais(typed: string): number | null {
  const text = typed.trim().replace(/^R\$\s*/i, '').replace(/\s/g, '');
  if (text.length === 0 || text.length > 32) return null;
  const m = PT_BR.exec(text) ?? DOT_DECIMAL.exec(text) ?? EN_GROUPED.exec(text);
  if (!m) return null;
  const whole = m[1]!.replace(/[.,]/g, '').replace(/^0+(?=\d)/, '');
  if (whole.length > MAX_REAIS_DIGITS) return 99_999_999_999;
  return Number(whole) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}
