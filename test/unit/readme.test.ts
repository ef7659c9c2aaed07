import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The README is what a newcomer follows: the commands its quick start and set-up give must exist, and its tables
 * must render as tables.
 */

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const readme = read('README.md');
const scripts = Object.keys(
  (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts,
);
const configVariables = [...read('src/config.ts').matchAll(/^\s{4}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);

/** The README's `## ` sections by heading. */
function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const newline = part.indexOf('\n');
    out.set(part.slice(0, newline).trim(), part.slice(newline + 1));
  }
  return out;
}

/** The fenced code blocks of a piece of markdown (indented ones in lists too). */
const fencedBlocks = (markdown: string) =>
  [...markdown.matchAll(/^[ \t]*```[^`\n]*\n([\s\S]*?)^[ \t]*```[ \t]*$/gm)].map((m) => m[1] ?? '');

/** The names a command line asks of the project: `npm run <script>`, `npm <start|test>`, variables. */
function problemsIn(block: string): string[] {
  const problems: string[] = [];
  for (const raw of block.split('\n')) {
    const line = raw.replace(/#.*$/, '');
    for (const m of line.matchAll(/\bnpm run ([\w:-]+)/g))
      if (!scripts.includes(m[1] ?? '')) problems.push(`npm run ${m[1]}: no such script`);
    for (const m of line.matchAll(/\bnpm (start|test)\b/g))
      if (!scripts.includes(m[1] ?? '')) problems.push(`npm ${m[1]}: no such script`);
    for (const m of line.matchAll(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g))
      if (!configVariables.includes(m[1] ?? ''))
        problems.push(`${m[1]}: src/config.ts reads no such variable`);
  }
  return problems;
}

/** Each table's problems: a header and a separator row first, then rows of as many cells, with no gap. */
function tableProblems(markdown: string): string[] {
  const problems: string[] = [];
  const lines = markdown.split('\n');
  const cells = (line: string) => line.replace(/\\\|/g, '').split('|').length - 2;
  let inFence = false;
  let table: { header: number; at: number } | undefined;
  let lastTableEnd = -2;
  for (const [index, line] of lines.entries()) {
    // A fence closes only on a line of its own: a transcript inside one may show Slack's inline ``` blocks.
    if (inFence ? /^\s*```\s*$/.test(line) : /^\s*```[^`]*$/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const isRow = line.startsWith('|');
    if (!isRow) {
      if (table) lastTableEnd = index;
      table = undefined;
      continue;
    }
    const where = `README.md:${index + 1}`;
    if (!table) {
      const separator = lines[index + 1] ?? '';
      if (!/^\|(\s*:?-{3,}:?\s*\|)+\s*$/.test(separator)) {
        const gap = lastTableEnd === index - 1 && lines[index - 1]?.trim() === '';
        problems.push(
          `${where}: a table row with no header and separator above it${gap ? ' (a blank line inside a table?)' : ''}`,
        );
        table = { header: cells(line), at: index };
        continue;
      }
      table = { header: cells(line), at: index };
      continue;
    }
    if (cells(line) !== table.header)
      problems.push(
        `${where}: ${cells(line)} cells where the header at line ${table.at + 1} has ${table.header}`,
      );
  }
  return problems;
}

describe('README', () => {
  const all = sections(readme);

  it('leads with what a newcomer needs: prerequisites, quick start and set-up before contributor material', () => {
    const order = [...all.keys()];
    for (const heading of ['Prerequisites', 'Quick start', 'Set up in a real workspace'])
      expect(order).toContain(heading);
    expect(order.indexOf('Set up in a real workspace')).toBeLessThan(order.indexOf('Tests'));
  });

  it('gives only commands that exist in its quick start and set-up', () => {
    const checked = ['Prerequisites', 'Quick start', 'Set up in a real workspace'].map(
      (h) => all.get(h) ?? '',
    );
    const blocks = checked.flatMap(fencedBlocks);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    expect(blocks.flatMap(problemsIn)).toEqual([]);
    // Inline commands of those sections too: every `npm run …` and every variable named in backticks.
    const inline = checked.flatMap((text) => [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? ''));
    expect(inline.flatMap(problemsIn)).toEqual([]);
  });

  it('has tables that parse: a header, a separator, rows of as many cells, no blank line inside', () => {
    expect(tableProblems(readme)).toEqual([]);
  });

  it('the check itself finds a blank line inside a table and a command that does not exist', () => {
    const broken = '| a | b |\n| --- | --- |\n| 1 | 2 |\n\n| 3 \\| 4 | 5 |\n';
    expect(tableProblems(broken)).toHaveLength(1);
    expect(tableProblems(broken)[0]).toContain('blank line inside a table');
    expect(problemsIn('npm run demoo\nSLACK_BOTTOKEN=xoxb-1 npm start')).toEqual([
      'npm run demoo: no such script',
      'SLACK_BOTTOKEN: src/config.ts reads no such variable',
    ]);
  });
});
