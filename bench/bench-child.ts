import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * What the benches that measure time and memory in this process share: the sandbox runs in a `--serve` child
 * (its work must not show in our figures), medians of alternating rounds, a full GC between them. Only node
 * built-ins here, so importing this loads nothing that would weigh on the memory measured.
 */

/** A full GC when available (node --expose-gc), else the V8 flag trick; memory baselines need it. */
export function findGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return () => {};
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Starts the bench file `moduleUrl` with --serve in a child and reads the sandbox address from its first line. */
export async function startSandboxChild(
  moduleUrl: string,
): Promise<{ url: string; origin: string; child: ChildProcess }> {
  const file = fileURLToPath(moduleUrl);
  const loader = process.execArgv.some((arg) => arg.includes('tsx')) ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...process.execArgv, ...loader, file, '--serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const [first] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(() => {
      throw new Error('the sandbox child exited before it printed its address');
    }),
  ])) as [string];
  lines.close();
  return { ...(JSON.parse(first) as { url: string; origin: string }), child };
}

/** The `--serve` child's side: a sandbox, its address on stdout, until the parent closes our stdin. */
export async function serveForParent(): Promise<void> {
  const { startSandbox } = await import('../src/sandbox/index.js');
  const sandbox = await startSandbox({ port: 0 });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, origin: sandbox.origin })}\n`);
  // The parent closes our stdin when it is done (or dies): then we stop.
  process.stdin.resume();
  await once(process.stdin, 'end');
  await sandbox.close();
}

/** Ends a `--serve` child: closes its stdin, waits up to 2 s for it to exit, then kills it. */
export async function stopChild(child: ChildProcess): Promise<void> {
  child.stdin?.end();
  await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 2_000))]);
  if (child.exitCode === null) child.kill();
}

/** Prints a bench's summary and, with `--strict`, fails the run when a goal was missed. */
export function reportFigures<F extends { summary: string; ok: boolean }>(
  figures: F,
  argv: readonly string[],
): F {
  console.log(figures.summary);
  if (argv.includes('--strict') && !figures.ok) process.exitCode = 1;
  return figures;
}
