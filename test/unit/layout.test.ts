import { readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** One name for one thing (issue 8): no two source files share a name in different folders. */

const SRC = join(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('source layout', () => {
  it('gives every file a name of its own (a folder’s index.ts excepted)', () => {
    const byName = new Map<string, string[]>();
    for (const file of sourceFiles(SRC)) {
      const name = basename(file);
      if (name === 'index.ts') continue;
      byName.set(name, [...(byName.get(name) ?? []), relative(SRC, file)]);
    }
    const shared = [...byName.values()].filter((paths) => paths.length > 1);
    expect(shared).toEqual([]);
  });
});
