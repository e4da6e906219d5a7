#!/usr/bin/env node
// CLI entry for `npx pixgate ...`: runs the TypeScript sources through tsx, no build step.
import { register } from 'tsx/esm/api';
register();
await import('../src/main.ts');
