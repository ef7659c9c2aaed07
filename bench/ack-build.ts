/**
 * The ack benchmark runs its processes as `npm start` runs the bot: compiled by tsc and run by plain node. Through
 * tsx every function made at run time is named by a call esbuild adds (`keepNames`: a property definition per
 * closure, several on each command's answer path), a cost the compiled bot does not have. The roles file and
 * what it imports (the bot, the bare apps, the stand-ins) are compiled into node_modules/.cache, a folder no
 * tool of the project looks into; `--tsx` runs them through tsx as before.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Compiles `bench/<name>.ts` and what it imports; returns the compiled file's path. */
export function compileBench(name: string): string {
  const out = join(root, 'node_modules', '.cache', 'gateway-bot-bench');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const config = join(out, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(root, 'tsconfig.json'),
      compilerOptions: { noEmit: false, outDir: out, rootDir: root, sourceMap: false },
      files: [join(root, 'bench', `${name}.ts`)],
      include: [],
    }),
  );
  // Under node_modules a folder is no package of ours: its .js files are ES modules only when it says so.
  writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', config], { stdio: 'inherit' });
  return join(out, 'bench', `${name}.js`);
}
