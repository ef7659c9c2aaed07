import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { ensureRedis } from '../../src/local/redis-local.js';
import { COMPILED_DIR_ENV, PROCESS_SOURCES } from './compiled.js';

/**
 * Compiles what the tests' child processes run (compiled.ts) into a folder of this run's own under
 * node_modules/.cache, paths kept, so that packages resolve as they do from src/. About a second.
 */
function compileForProcesses(root: string): () => void {
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'gateway-bot-test-'));
  const entryPoints = PROCESS_SOURCES.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
      .map((name) => join(root, folder, name)),
  );
  buildSync({
    entryPoints,
    outbase: root,
    outdir: dir,
    platform: 'node',
    format: 'esm',
    logLevel: 'warning',
  });
  // The files the code finds beside itself (the charts' core font).
  cpSync(join(root, 'src', 'charts', 'fonts'), join(dir, 'src', 'charts', 'fonts'), { recursive: true });
  // Outside the project's package scope: say that its JavaScript is ESM, as package.json does for src/.
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  process.env[COMPILED_DIR_ENV] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** Makes sure a Redis answers for the whole run (test files read its URL from REDIS_URL); compiles the bot. */
export default async function setup(): Promise<() => Promise<void>> {
  const removeCompiled = compileForProcesses(fileURLToPath(new URL('../..', import.meta.url)));
  const redis = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  process.env.REDIS_URL = redis.url;
  return async () => {
    await redis.stop();
    removeCompiled();
  };
}
