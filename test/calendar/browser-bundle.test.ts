import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config.js';

// The rules the dashboard imports (web/tsconfig.json includes them) must not need Node. web's type-check
// cannot tell — vite's own types bring @types/node into it — so this bundles them for the browser (a
// `node:` import fails to resolve) and runs the bundle in a bare V8 context: no Buffer, process, require
// or URL, only the language's built-ins (Intl, BigInt).
const SHARED = [
  './src/calendar/index.js',
  './src/charges/due-date.rules.js',
  './src/charges/due-date-check.rules.js',
  './src/charges/due-date-cobv.rules.js',
  './src/subscriptions/cycle.rules.js',
];

describe('the rules shared with the dashboard', () => {
  it('bundle for the browser and run without Node globals', async () => {
    const out = await build({
      stdin: { contents: SHARED.map((p) => `export * from '${p}';`).join('\n'), resolveDir: PROJECT_ROOT, loader: 'ts' },
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'rules',
      write: false,
      logLevel: 'silent',
    });
    const code = out.outputFiles[0]!.text;
    const context: Record<string, unknown> = {};
    runInNewContext(code, context);
    const run = (expression: string) => runInNewContext(expression, context);
    expect(run('typeof Buffer + typeof process + typeof require + typeof URL')).toBe('undefinedundefinedundefinedundefined');

    const terms = `({ amount: 100000, dueDate: '2026-03-10', daysAfterDue: 30, fine: { mode: 'PERCENT', value: 200 },
      interest: { mode: 'PERCENT_PER_MONTH', value: 100 }, discount: { mode: 'FIXED_UNTIL', tiers: [{ date: '2026-03-10', value: 2000 }] } })`;
    expect(run(`rules.amountDue(${terms}, '2026-03-11').amountDue`)).toBe(102_033);
    expect(run(`rules.checkDueDateTerms(${terms}, '2026-03-11').field`)).toBe('dueDate');
    expect(run(`rules.toCobVValor(${terms}).juros`)).toEqual({ modalidade: 3, valorPerc: '1.00' });
    expect(run(`rules.dueDateExpiresAt(${terms}).toISOString()`)).toBe('2026-04-10T02:59:59.999Z');
    expect(run(`rules.saoPauloDate(new Date('2026-11-27T02:00:00Z'))`)).toBe('2026-11-26');
    expect(run(`rules.cycleDueDates('2026-01-31', 'MONTHLY', '2026-03-31').join()`)).toBe('2026-02-02,2026-03-02,2026-03-31');
  });
});
