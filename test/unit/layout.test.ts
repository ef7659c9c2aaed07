import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The source layout and comment habits CONTRIBUTING.md's "Project structure" describes, checked on every file. */

const ROOT = join(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const everyFile = () => ['src', 'test', 'bench'].flatMap((dir) => sourceFiles(join(ROOT, dir)));
const where = (file: string, text: string, index: number) =>
  `${relative(ROOT, file)}:${text.slice(0, index).split('\n').length}`;

/** Two docblocks with nothing but a line break between them: the first is stale or belongs elsewhere. */
function stackedDocblocks(text: string): number[] {
  return [...text.matchAll(/\*\/[ \t]*\n[ \t]*\/\*\*/g)].map((m) => m.index);
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

  it('keeps no approval- or digest-specific file in jobs/ (queue mechanics and the action queue only)', () => {
    const specific = sourceFiles(join(SRC, 'jobs')).filter((f) => /approval|digest/.test(basename(f)));
    expect(specific.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it('has no `as never` in src/', () => {
    const found = sourceFiles(SRC).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [...text.matchAll(/\bas never\b/g)].map((m) => where(file, text, m.index));
    });
    expect(found).toEqual([]);
  });

  it('calls chat.* and views.* of the Web API only in slack/ (and the local stand-in)', () => {
    const found = sourceFiles(SRC)
      .filter((file) => !/\/src\/(slack|local)\//.test(file))
      .flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        const calls = /\.(chat\s*\.\s*[a-zA-Z]+|views\s*\.\s*(open|update|push|publish))\(/g;
        return [...text.matchAll(calls)].map((m) => where(file, text, m.index));
      });
    expect(found).toEqual([]);
  });
});

describe('comments', () => {
  it('finds two docblocks stacked on one declaration, and none in src, test or bench', () => {
    expect(stackedDocblocks('/** One. */\n/** Two. */\nconst x = 1;')).toHaveLength(1);
    expect(stackedDocblocks('/** File header. */\n\n/** The declaration. */\nconst x = 1;')).toHaveLength(0);
    const found = everyFile().flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return stackedDocblocks(text).map((index) => where(file, text, index));
    });
    expect(found).toEqual([]);
  });

  it('cites no issue numbers (the code outlives the tracker)', () => {
    const issue = new RegExp(`\\b${'issue'}s? #?\\d+`, 'gi');
    const found = everyFile().flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [...text.matchAll(issue)].map((m) => where(file, text, m.index));
    });
    expect(found).toEqual([]);
  });

  it('reaches Slack only through slack/: no Bolt respond() or say(), no WebClient, no Web API call elsewhere', () => {
    const ways =
      /(?<![.\w])(respond|say)\(|new WebClient\b|import \{[^}]*\bWebClient\b[^}]*\} from '@slack\/web-api'|\.(users|usergroups|conversations|files|auth|functions|openid)\s*\.\s*[a-zA-Z.]+\(/g;
    const found = sourceFiles(SRC)
      .filter((file) => !/\/src\/(slack|local|sandbox)\//.test(file))
      .flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        return [...text.matchAll(ways)].map((m) => `${where(file, text, m.index)} ${m[0]}`);
      });
    expect(found).toEqual([]);
  });

  it('hands the whole services object to no feature: a feature names the parts it uses', () => {
    // The features of the architecture rules, read from their list in .dependency-cruiser.cjs.
    const rules = readFileSync(join(ROOT, '.dependency-cruiser.cjs'), 'utf8');
    const features = [
      ...(/const FEATURES = \[([^\]]*)\]/.exec(rules)?.[1]?.matchAll(/'([a-z-]+)'/g) ?? []),
    ].map((m) => m[1] ?? '');
    expect(features).toContain('requests');
    const found = features
      .flatMap((feature) => sourceFiles(join(SRC, feature)))
      .flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        return [...text.matchAll(/:\s*(Core|Bot)Services\b(?!\s*\[)/g)].map((m) =>
          where(file, text, m.index),
        );
      });
    expect(found).toEqual([]);
  });
});
