import { useEffect, useState } from 'react';

let known: Promise<boolean> | null = null;

/**
 * Whether the merchant's simulated payment exists (only while the simulator is the provider,
 * docs/contract/charges.md#simulate-payment): the public OpenAPI document lists the route exactly then.
 */
export function useSimulator(): boolean {
  const [on, setOn] = useState(false);
  useEffect(() => {
    known ??= fetch('/openapi.json').then((r) => r.json()).then((d: { paths?: Record<string, unknown> }) => !!d.paths?.['/transparents/simulate-payment'], () => false);
    let live = true;
    void known.then((v) => { if (live) setOn(v); });
    return () => { live = false; };
  }, []);
  return on;
}
