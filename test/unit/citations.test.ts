import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Nothing in the project cites documents outside it: a clone has only what it holds. The gateway contract the
 * code relies on is docs/gateway-api.md (it names its source), and a section sign points there (or to an RFC).
 */

const ROOT = join(import.meta.dirname, '../..');
const PLACES = [
  'src',
  'test',
  'bench',
  'scripts',
  'docs',
  '.ci',
  'README.md',
  'CONTRIBUTING.md',
  'manifest.yml',
  '.env.sample',
  'Dockerfile',
  'compose.yaml',
  'package.json',
  'knip.json',
  'biome.json',
  '.dependency-cruiser.cjs',
  '.dependency-cruiser-folders.cjs',
];
const SKIP = new Set(['node_modules', 'dist']);
const TEXT = /\.(ts|mts|mjs|cjs|js|json|md|ya?ml|sample)$|^(Dockerfile|run)$/;
const CONTRACT = 'docs/gateway-api.md';

function files(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((e) =>
    SKIP.has(e.name)
      ? []
      : e.isDirectory()
        ? files(join(path, e.name))
        : TEXT.test(e.name)
          ? [join(path, e.name)]
          : [],
  );
}

/** What is wrong with one line, if anything. */
function outsideCitation(line: string, file: string): string | undefined {
  if (/\.\.\/shared\b/.test(line)) return 'reads or cites ../shared';
  if (/\b(DESIGN|STYLE)(\.md\b|\s*§)/.test(line))
    return 'cites a design or style document outside the project';
  const contract = line.replace(/docs\/gateway-api\.md/g, '');
  if (/gateway-api/.test(contract))
    return `names the gateway document without its project copy (${CONTRACT})`;
  if (file === CONTRACT) return undefined; // its own sections
  for (const at of [...line.matchAll(/§/g)].map((m) => m.index)) {
    const before = line.slice(0, at);
    if (!before.includes(CONTRACT) && !/\bRFC \d+[^§]*$/.test(before))
      return `a bare § (point it to ${CONTRACT})`;
  }
  return undefined;
}

describe('citations', () => {
  it('cites no document outside the project', () => {
    const found: string[] = [];
    for (const path of PLACES.flatMap((p) => files(join(ROOT, p)))) {
      const file = relative(ROOT, path);
      if (file === 'test/unit/citations.test.ts') continue;
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const why = outsideCitation(line, file);
          if (why) found.push(`${file}:${i + 1}: ${why}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('keeps the gateway contract it points to', () => {
    const contract = readFileSync(join(ROOT, CONTRACT), 'utf8');
    expect(contract).toMatch(/^Source: the agency platform's gateway API document/m);
    for (const section of ['## 2. Resources', '### 4.3 Action', '### 4.4 Client-side', '## 7. Errors'])
      expect(contract).toContain(section);
  });
});
