// Functions over 60 lines and files over 350 lines in src/ (outside local/ and sandbox/): `npm run sizes`.
import ts from 'typescript';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
const ROOT = join(import.meta.dirname, '..');
const FN = Number(process.argv[2] ?? 60), FILE = Number(process.argv[3] ?? 350);
const files = [];
const walk = (d) => { for (const e of readdirSync(d, { withFileTypes: true })) { const p = join(d, e.name); if (e.isDirectory()) walk(p); else if (p.endsWith('.ts')) files.push(p); } };
walk(join(ROOT, 'src'));
const skip = (f) => /\/src\/(local|sandbox)\//.test(f);
let longFns = [], longFiles = [];
for (const f of files) {
  if (skip(f)) continue;
  const text = readFileSync(f, 'utf8');
  const lines = text.split('\n').length;
  if (lines > FILE) longFiles.push(`${relative(ROOT, f)} ${lines}`);
  const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
  const visit = (n) => {
    if (ts.isFunctionLike(n) && n.body) {
      const a = sf.getLineAndCharacterOfPosition(n.getStart()).line, b = sf.getLineAndCharacterOfPosition(n.end).line;
      const len = b - a + 1;
      if (len > FN) {
        const name = n.name?.getText?.() ?? (ts.isVariableDeclaration(n.parent) ? n.parent.name.getText() : ts.isPropertyAssignment(n.parent) ? n.parent.name.getText() : '<anon>');
        longFns.push(`${relative(ROOT, f)}:${a + 1} ${name} ${len}`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
console.log(`functions over ${FN} lines: ${longFns.length}`); for (const l of longFns) console.log('  ' + l);
console.log(`files over ${FILE} lines: ${longFiles.length}`); for (const l of longFiles) console.log('  ' + l);
