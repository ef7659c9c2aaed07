import { join } from 'node:path';

/**
 * The bot's own processes in tests (`src/main.ts`, the fleet's roles, the fixtures) run from JavaScript
 * compiled once per vitest run (global-setup.ts), not through tsx at every start: the same per-file esbuild
 * transform tsx does, done ahead of time. tsx's loader cost about 2 s of CPU a process on the 2-core machine
 * (4.3 s against 2.2 s for a start that stops at its config), and a run starts a few dozen. Outside vitest
 * (`npm run faults`, a bench) nothing is compiled and the processes run through tsx as before.
 */

/** Where global-setup put the compiled tree, for the whole vitest run (the workers inherit it). */
export const COMPILED_DIR_ENV = 'GATEWAY_BOT_TEST_BUILD';

/** The folders a process started by a test loads code from, compiled with their paths kept. */
export const PROCESS_SOURCES = ['src', 'test/fleet', 'test/fixtures', 'test/helpers'];

/** Node's arguments to run a TypeScript entry given from the project's root (`src/main.ts`). */
export function nodeArgsFor(entry: string): string[] {
  const dir = process.env[COMPILED_DIR_ENV];
  return dir ? [join(dir, entry.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', entry];
}
