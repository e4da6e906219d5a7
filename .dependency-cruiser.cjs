// The dependency rules of src/ (docs/architecture.md, "Dependency rules"), checked by `npm test`
// (`npm run check:deps`). File names, SQL placement and READMEs, which imports cannot show, are test/foundation/layout.test.ts.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-no-slice',
      comment: 'platform/ is infrastructure every slice uses: it knows no slice (a slice hands it what it needs, e.g. ScrapedGauges).',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: ['^src/platform/', '^src/config\\.ts$'] },
    },
    {
      name: 'libraries-import-no-slice',
      comment: 'ledger/ and pix/ are libraries every slice uses, like platform/.',
      severity: 'error',
      from: { path: '^src/(ledger|pix)/' },
      to: { path: '^src/', pathNot: ['^src/(platform|ledger|pix)/', '^src/config\\.ts$'] },
    },
    {
      name: 'only-entry-points-import-the-composition-root',
      comment: 'src/composition.ts knows every slice; a slice that imported it would depend on all of them. Slices take a Runtime (src/runtime.ts).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/main\\.ts$' },
      to: { path: '^src/composition\\.ts$' },
    },
    {
      name: 'nothing-imports-main',
      severity: 'error',
      from: {},
      to: { path: '^src/main\\.ts$' },
    },
    {
      name: 'runtime-is-a-leaf',
      comment: 'src/runtime.ts is the Runtime type: it imports types of the platform and the provider port, never a slice.',
      severity: 'error',
      from: { path: '^src/runtime\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/platform/', '^src/config\\.ts$', '^src/providers/port/'] },
    },
    {
      name: 'no-folder-cycles',
      comment: 'Slices depend on each other one way: no folder imports a folder that (through others) imports it back.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'src-imports-no-test-code',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|web)/' },
    },
    {
      name: 'no-unresolvable-imports',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.json'] },
  },
};
