// `npm run build`: a clean dist/ from src/ (tsc alone would leave the output of deleted files behind), with the
// files tsc does not copy (the charts' font).
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(`${root}dist`, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`], { stdio: 'inherit' });
if (result.status === 0) cpSync(`${root}src/charts/fonts`, `${root}dist/charts/fonts`, { recursive: true });
process.exit(result.status ?? 1);
