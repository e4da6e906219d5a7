/**
 * Integer cents as BACEN's money text, `\d{1,10}\.\d{2}` (BR Code field 54, API Pix `valor`), without
 * going through floating point. Basis points give API Pix percentages the same way (250 → `2.50`).
 */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new Error('amount must be a non-negative integer of cents');
  const digits = String(cents).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
