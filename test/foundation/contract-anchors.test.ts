import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';

// Every rule the code follows is cited as `docs/<file>.md#<anchor>` (docs/contract.md, "Citing the contract").
// This keeps those citations, and the anchored links between the docs, pointing at headings that exist, and
// keeps anything from citing a document a clone of Pixgate does not contain.

const ROOT = resolve(import.meta.dirname, '../..');
const SCANNED = ['src', 'test', 'web/src', 'bench', 'migrations', 'docs', 'bin', 'README.md'];
const TEXT = /\.(ts|tsx|js|mjs|cjs|sql|md|html|css)$/;
const SELF = relative(ROOT, import.meta.filename);

/** `docs/<path>.md#<anchor>` (or a whole `docs/<path>.md`) written from the repository root, in any file. */
const ROOT_CITATION = /(?<![\w./-])(docs\/[\w./-]+?\.md)(?:#([\w-]+))?/g;
/** A Markdown link with an anchor, relative to the Markdown file: `](other.md#anchor)` or `](#anchor)`. */
const MD_LINK = /\]\(((?:[\w./-]+?\.md)?)#([^)\s]+)\)/g;
/** Citations of documents outside the repository. */
const OUTSIDE = [
  /\bdecisions?(?:\.md)?,?\s+(?:parts?\s+)?\d/i,
  /\bdecisions\.md\b/i,
  /payments-api-spec/i,
  /\bspec(?:\s+parts?)?\s+\d+(?:\.\d+)?\b/i,
  /\.\.\/shared\//,
  /\/work\/shared\b/,
];

interface Citation {
  from: string;
  line: number;
  file: string;
  /** Undefined when the whole file is cited. */
  anchor?: string;
}

function filesUnder(path: string): string[] {
  const full = join(ROOT, path);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return TEXT.test(path) ? [path] : [];
  return readdirSync(full).flatMap((name) => (name === 'node_modules' || name === 'dist' ? [] : filesUnder(join(path, name))));
}

/** The GitHub anchors of a Markdown text: its headings' slugs (outside code fences) and explicit `<a id>`s. */
function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker) fence = fence === null ? marker : fence === marker ? null : fence;
    if (fence !== null || marker) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
      anchors.add(slugger.slug(text));
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  return anchors;
}

/** Every citation of a Markdown anchor in `text`, resolved to a path from the repository root. */
function citationsIn(from: string, text: string): Citation[] {
  const out: Citation[] = [];
  text.split('\n').forEach((content, i) => {
    for (const m of content.matchAll(ROOT_CITATION)) out.push({ from, line: i + 1, file: m[1]!, anchor: m[2] });
    if (!from.endsWith('.md')) return;
    for (const m of content.matchAll(MD_LINK)) {
      if (/^[a-z]+:/i.test(m[1]!)) continue;
      const file = m[1] ? relative(ROOT, resolve(ROOT, dirname(from), m[1])) : from;
      out.push({ from, line: i + 1, file, anchor: decodeURIComponent(m[2]!) });
    }
  });
  return out;
}

/** The citations whose file or heading does not exist, as `from:line → file#anchor (why)`. */
function brokenCitations(citations: Citation[], read: (file: string) => string | undefined): string[] {
  const anchors = new Map<string, Set<string> | undefined>();
  return citations.flatMap((c) => {
    if (!anchors.has(c.file)) {
      const text = read(c.file);
      anchors.set(c.file, text === undefined ? undefined : anchorsOf(text));
    }
    const known = anchors.get(c.file);
    const why = known === undefined ? 'no such file' : c.anchor === undefined || known.has(c.anchor) ? null : 'no such heading';
    return why ? [`${c.from}:${c.line} → ${c.file}${c.anchor === undefined ? '' : `#${c.anchor}`} (${why})`] : [];
  });
}

/** Lines that cite a document outside the repository. */
function outsideCitations(from: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => (OUTSIDE.some((re) => re.test(line)) ? [`${from}:${i + 1}: ${line.trim()}`] : []));
}

const readRepoFile = (file: string): string | undefined => {
  const full = join(ROOT, file);
  return existsSync(full) && statSync(full).isFile() ? readFileSync(full, 'utf8') : undefined;
};

const scanned = SCANNED.flatMap(filesUnder).filter((file) => file !== SELF);

/**
 * Migrations applied before the contract moved into the repository: their checksums are recorded in every
 * database that ran them (platform/migrate.ts refuses a changed file), so their comments keep citing
 * "decisions part N". docs/contract.md ("Older citations") maps those parts to the contract.
 */
const FROZEN = new Set([
  'migrations/0001_foundation.sql', 'migrations/0002_charges.sql', 'migrations/0003_withdrawals.sql',
  'migrations/0004_webhooks.sql', 'migrations/0007_psp_trust.sql', 'migrations/0008_psp_safety.sql',
  'migrations/0009_users.sql', 'migrations/0010_webhook_operations.sql', 'migrations/0011_statement_lines.sql',
]);

describe('citations of the contract', () => {
  it('the checker finds a heading by its GitHub slug, and reports a missing heading or file', () => {
    const doc = '# Contract\n## Idempotency claims\n### `Service-Signature` and [links](x.md)\n```\n## Not a heading\n```\n';
    expect([...anchorsOf(doc)]).toEqual(['contract', 'idempotency-claims', 'service-signature-and-links']);
    const cites = citationsIn('src/x.ts', [
      '// (docs/contract.md#idempotency-claims) and docs/contract.md#not-a-heading',
      '// docs/missing.md#anything, and docs/contract.md as a whole',
    ].join('\n'));
    const docs: Record<string, string> = { 'docs/contract.md': doc };
    expect(brokenCitations(cites, (file) => docs[file])).toEqual([
      'src/x.ts:1 → docs/contract.md#not-a-heading (no such heading)',
      'src/x.ts:2 → docs/missing.md#anything (no such file)',
    ]);
    expect(citationsIn('docs/a/b.md', 'see [c](../c.md#x-y) and [self](#z)')).toEqual([
      { from: 'docs/a/b.md', line: 1, file: 'docs/c.md', anchor: 'x-y' },
      { from: 'docs/a/b.md', line: 1, file: 'docs/a/b.md', anchor: 'z' },
    ]);
    expect(outsideCitations('x.ts', '// (decisions part 15)\n// spec 4.4 item 3\n// see ../shared/spec\n// part 2 of the proof')).toHaveLength(3);
  });

  it('every cited docs/<file>.md#<anchor>, and every anchored link between the docs, names a heading that exists', () => {
    const citations = scanned.flatMap((file) => citationsIn(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(brokenCitations(citations, readRepoFile)).toEqual([]);
    // The scan itself works: the code cites the contract throughout.
    expect(citations.filter((c) => c.file.startsWith('docs/contract') && !c.from.startsWith('docs/contract')).length).toBeGreaterThan(100);
  });

  it('nothing cites a document outside the repository (the decisions file, the spec, ../shared)', () => {
    const open = scanned.filter((file) => !FROZEN.has(file));
    expect(open.flatMap((file) => outsideCitations(file, readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });
});
