import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// No node: imports, so web/tsconfig.json (browser types only) checks this file too.
const root = decodeURIComponent(new URL('.', import.meta.url).pathname);

/** The dashboard is served by the API process under /dashboard (src/dashboard/); assets get content hashes. */
export default defineConfig({
  root,
  base: '/dashboard/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No source maps and no size report: `npm start` and `npm test` build on a fresh clone, so speed counts.
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 2000,
  },
});
