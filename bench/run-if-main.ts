import { pathToFileURL } from 'node:url';

/** Runs `entry` when the calling module is the script node was started with (not when run-all imports it). */
export function runIfMain(moduleUrl: string, entry: () => Promise<unknown>): void {
  const script = process.argv[1];
  if (script === undefined || moduleUrl !== pathToFileURL(script).href) return;
  entry().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
