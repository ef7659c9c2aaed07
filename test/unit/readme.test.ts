import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README is what a newcomer follows, in about ten minutes: its sections in the order they need them, the
 * commands its quick start and set-up give must exist, its tables must render as tables, and every relative link
 * (of the README and the documents beside it) must lead somewhere.
 */

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const readme = read('README.md');
const scripts = Object.keys(
  (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts,
);
const configVariables = [...read('src/config/env-schema.ts').matchAll(/^\s{4}([A-Z][A-Z0-9_]+):/gm)].map(
  (m) => m[1],
);

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
        problems.push(`${m[1]}: src/config/env-schema.ts reads no such variable`);
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

const docs = readdirSync(new URL('../../docs/', import.meta.url))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** Relative links of a markdown file (outside code) whose file, or heading in that file, does not exist. */
function linkProblems(file: string): string[] {
  const text = read(file).replace(/^[ \t]*```[\s\S]*?^[ \t]*```/gm, '');
  const problems: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1] ?? '';
    if (/^[a-z]+:/i.test(target)) continue;
    const [path = '', anchor] = target.split('#');
    const resolved = path ? join(dirname(file), path) : file;
    if (!existsSync(new URL(`../../${resolved}`, import.meta.url))) {
      problems.push(`${file}: ${target}: no such file`);
      continue;
    }
    if (anchor && resolved.endsWith('.md')) {
      const headings = [...read(resolved).matchAll(/^#{1,6} (.+)$/gm)].map((h) => slug(h[1] ?? ''));
      if (!headings.includes(anchor)) problems.push(`${file}: ${target}: no such heading`);
    }
  }
  return problems;
}

describe('README', () => {
  const all = sections(readme);

  it('reads in the order a newcomer needs it, in under 350 lines', () => {
    expect(readme.split('\n').length).toBeLessThan(350);
    expect([...all.keys()]).toEqual([
      'Prerequisites',
      'Quick start',
      'The demo',
      'Set up in a real workspace',
      'Using it',
      'Configuration',
      'Links',
    ]);
    const using = [...(all.get('Using it') ?? '').matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    expect(using).toEqual(['Commands', 'Approvals', 'Digests', 'Home', 'Assistants', 'Charts']);
  });

  it('holds what the front door must: the two commands, Slack set-up from the manifest, the command list', () => {
    expect(all.get('Quick start')).toMatch(/npm start/);
    expect(all.get('Quick start')).toMatch(/npm test/);
    expect(all.get('Set up in a real workspace')).toContain('manifest.yml');
    const commands = all.get('Using it') ?? '';
    for (const command of ['help', 'use <client_id>', 'keywords', 'deploy', 'digest', 'chart', 'mcp token'])
      expect(commands).toContain(`| \`${command}`);
    expect(all.get('Configuration')).toContain('| `SLACK_BOT_TOKEN` |');
  });

  it('links only to files and headings that exist, in the README and the documents it links to', () => {
    expect(['README.md', 'CONTRIBUTING.md', ...docs].flatMap(linkProblems)).toEqual([]);
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
    expect(linkProblems('test/fixtures/broken-links.md')).toEqual([
      'test/fixtures/broken-links.md: ../../docs/nowhere.md: no such file',
      'test/fixtures/broken-links.md: ../../README.md#nowhere: no such heading',
    ]);
    expect(problemsIn('npm run demoo\nSLACK_BOTTOKEN=xoxb-1 npm start')).toEqual([
      'npm run demoo: no such script',
      'SLACK_BOTTOKEN: src/config/env-schema.ts reads no such variable',
    ]);
  });
});
