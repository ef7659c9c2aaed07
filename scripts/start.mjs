// `npm start`: the compiled bot (dist/main.js) with production dependencies only.
//
// - Reads ./.env when it exists (Node's own process.loadEnvFile); variables already set win.
// - Builds first when dist/ is missing or older than src/. The build needs `tsc`, a dev dependency: a dev
//   checkout (`npm ci`) builds here; a production install (`npm ci --omit=dev`) must ship a built dist/
//   (the Docker image builds it in its build stage and runs `node dist/main.js`).
// - Runs the bot in this process, so SIGTERM and SIGINT reach its graceful stop directly.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = `${root}dist/main.js`;
const fail = (text) => {
  process.stderr.write(`npm start: ${text}\n`);
  process.exit(1);
};

function newestSourceMs() {
  const src = `${root}src`;
  if (!existsSync(src)) return 0;
  let newest = 0;
  for (const name of readdirSync(src, { recursive: true })) {
    newest = Math.max(newest, statSync(`${src}/${name}`).mtimeMs);
  }
  for (const name of ['tsconfig.json', 'tsconfig.build.json', 'package.json']) {
    if (existsSync(`${root}${name}`)) newest = Math.max(newest, statSync(`${root}${name}`).mtimeMs);
  }
  return newest;
}

function tscPath() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

const built = existsSync(entry) ? statSync(entry).mtimeMs : 0;
if (built < newestSourceMs()) {
  const tsc = tscPath();
  if (tsc) {
    process.stderr.write('npm start: building dist/ (src/ changed since the last build)…\n');
    const result = spawnSync(process.execPath, [`${root}scripts/build.mjs`], { stdio: 'inherit' });
    if (result.status !== 0) fail('the build failed (see above); fix it, or run `npm run build` to retry.');
  } else if (built) {
    process.stderr.write('npm start: dist/ is older than src/, and tsc (a dev dependency) is not installed: running dist/ as built.\n');
  } else {
    fail('dist/ is not built and tsc is not installed. Run `npm ci && npm run build` first (tsc is a dev dependency), or use the Docker image.');
  }
}

if (existsSync('.env')) process.loadEnvFile('.env');
await import(pathToFileURL(entry).href);
