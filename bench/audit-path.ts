/**
 * Audit path benchmark (`npx tsx bench/audit-path.ts`): how many files of `src/` one audit request runs, from
 * `/gateway audit` through its form, the submission, the request layer, the queued job, to the result in the
 * job's thread. Goal: at most 30 files. The stand-ins (src/local, src/sandbox) are not counted.
 * Everything real and in one process (the bot of runtime.ts in HTTP mode, Redis, the Slack stand-in, the
 * sandbox), under V8's precise coverage (NODE_V8_COVERAGE; the script starts itself again with it when it is
 * unset): one audit warms the path up, `v8.takeCoverage()` writes and resets the counters, a second audit runs,
 * and `v8.takeCoverage()` again gives the functions that ran in that window alone. The same is done for the
 * audit typed whole (`/gateway audit <url>`, no form), and for an idle window as long as the form's, whose
 * files (timers, pollers) are marked so they can be told from the path's own. `--functions` lists, under each
 * file, the functions of it that ran (a file where only a forwarding function ran is a pass-through). Under each
 * path, the fewest files it could cross with no file over 350 lines and no folder's code in another folder's
 * file: for its files as they are, and for only the functions that ran (their source lines, by the source maps
 * of the compiled modules: the child runs with --enable-source-maps).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { SlackDriver } from '../src/local/driver.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../src/local/fake-slack/index.js';
import { ensureRedis } from '../src/local/redis-local.js';
import { silentLogger } from '../src/logger.js';
import { createRedis, deleteByPrefix } from '../src/redis/connection.js';
import { startRuntime } from '../src/runtime.js';
import { BENCH_ADMIN as ADMIN, benchBotConfig, BENCH_SECRET as SECRET } from './bench-bot.js';
import { runIfMain } from './run-if-main.js';

const MEMBER = 'UMEMBER';
const CHANNEL = 'CAUDIT';
const GOAL_FILES = 30;
/** After the result is in the thread: the job's own ending (ledger, claims, Home marks) lands in the window too. */
const TAIL_MS = 300;
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');
const STAND_INS = ['local', 'sandbox'].map((folder) => `${path.join(SRC, folder)}${path.sep}`);

interface ScriptCoverage {
  url: string;
  functions: Array<{
    functionName: string;
    ranges: Array<{ count: number; startOffset: number; endOffset: number }>;
  }>;
}

/** A file's functions that ran in a window, and how many of its source lines they span (nested ones once). */
interface RanFile {
  functions: string[];
  lines: number;
}

/** What Node keeps of a compiled module's source map (the child runs with --enable-source-maps). */
interface SourceMapEntry {
  lineLengths: number[];
  data: SourceMapPayload;
}

/**
 * The source lines (of the .ts file) that compiled character ranges span, each line once. V8 counts offsets in
 * the JavaScript tsx compiled; its source map says which source line each place came from.
 */
function sourceLinesOf(
  entry: SourceMapEntry,
  ranges: Array<{ startOffset: number; endOffset: number }>,
): number {
  const map = new SourceMap(entry.data);
  const starts: number[] = [];
  let at = 0;
  for (const length of entry.lineLengths) {
    starts.push(at);
    at += length + 1;
  }
  const sourceLine = (offset: number): number | undefined => {
    let line = starts.findLastIndex((start) => start <= offset);
    line = Math.max(line, 0);
    const found = map.findEntry(line, offset - (starts[line] ?? 0)) as { originalLine?: number };
    return found.originalLine;
  };
  const lines = new Set<number>();
  for (const { startOffset, endOffset } of ranges) {
    const first = sourceLine(startOffset);
    const last = sourceLine(Math.max(startOffset, endOffset - 1));
    if (first === undefined || last === undefined) continue;
    for (let line = first; line <= last; line++) lines.add(line);
  }
  return lines.size;
}

/** `--functions`: each file's functions that ran are printed too (what tells a pass-through file). */
const SHOW_FUNCTIONS = process.argv.includes('--functions');

/**
 * The src/ files (relative, stand-ins left out) with a function that ran since the previous takeCoverage, each
 * with the names of those functions.
 */
function ranFiles(file: string): Map<string, RanFile> {
  const coverage = JSON.parse(readFileSync(file, 'utf8')) as {
    result: ScriptCoverage[];
    'source-map-cache'?: Record<string, SourceMapEntry>;
  };
  const { result } = coverage;
  const maps = coverage['source-map-cache'] ?? {};
  const files = new Map<string, RanFile>();
  for (const script of result) {
    if (!script.url.startsWith('file:')) continue;
    const abs = fileURLToPath(script.url);
    if (!abs.startsWith(`${SRC}${path.sep}`) || STAND_INS.some((dir) => abs.startsWith(dir))) continue;
    // A function's first range is the function itself; its count is how often it was called in the window.
    const ran = script.functions.filter((f) => (f.ranges[0]?.count ?? 0) > 0);
    if (ran.length === 0) continue;
    // The module's own body spans the whole file: only the functions count.
    const functionRanges = ran.flatMap((f) =>
      f.functionName === '' && f.ranges[0]?.startOffset === 0 ? [] : f.ranges.slice(0, 1),
    );
    const map = maps[script.url];
    files.set(path.relative(SRC, abs), {
      functions: ran.map((f) => f.functionName || '(anonymous)'),
      lines: map ? sourceLinesOf(map, functionRanges) : 0,
    });
  }
  return new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
}

/** Writes the coverage since the last call (and resets it); the file it wrote. */
function takeCoverage(dir: string): string {
  const before = new Set(readdirSync(dir));
  v8.takeCoverage();
  const written = readdirSync(dir).filter((f) => !before.has(f));
  const [file] = written;
  if (written.length !== 1 || !file)
    throw new Error(`bench: expected one coverage file, found ${written.length}`);
  return path.join(dir, file);
}

async function startBot() {
  const redisInfo = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const slack = await startFakeSlack();
  const { prefix, config } = benchBotConfig('audit', slack, redisInfo.url, {
    GATEWAY_ACTION_RATE: '10000/1s',
    SLACK_POST_INTERVAL: '0s',
    LOG_LEVEL: 'error',
  });
  const runtime = await startRuntime(config, silentLogger());
  const driver = new SlackDriver({
    eventsUrl: `http://127.0.0.1:${runtime.port}/slack/events`,
    signingSecret: SECRET,
    slack,
  });
  const stop = async () => {
    await runtime.stop(5_000);
    await slack.close();
    const redis = createRedis(redisInfo.url);
    await deleteByPrefix(redis, prefix).finally(() => redis.quit());
    await redisInfo.stop();
  };
  return { slack, driver, stop };
}

const textOf = (m: FakeMessage) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;

/** The result in the thread of the newest audit status message posted after `posted` messages. */
async function resultInThread(slack: FakeSlack, url: string, posted: number): Promise<void> {
  const status = await slack.waitFor(
    () =>
      slack
        .messages(CHANNEL)
        .slice(posted)
        .find((m) => textOf(m).includes(url)),
    { what: 'the audit status message', timeoutMs: 15_000 },
  );
  await slack.waitFor(() => slack.thread(CHANNEL, status.ts).find((m) => /audit/i.test(textOf(m))), {
    what: 'the audit result in the thread',
    timeoutMs: 15_000,
  });
  await new Promise((resolve) => setTimeout(resolve, TAIL_MS));
}

type Bot = Awaited<ReturnType<typeof startBot>>;

/** `/gateway audit` → its form → submitted with the page → the result in the thread. */
async function auditByForm({ slack, driver }: Bot, url: string): Promise<void> {
  const posted = slack.messages(CHANNEL).length;
  const views = slack.views(MEMBER).length;
  await driver.command('audit', { user: MEMBER, channel: CHANNEL });
  const form = await slack.waitFor(
    () =>
      slack
        .views(MEMBER)
        .slice(views)
        .find((v) => v.view.blocks.some((b: { type: string }) => b.type === 'input')),
    { what: 'the audit form' },
  );
  await driver.submit(form, { url }, { user: MEMBER });
  await resultInThread(slack, url, posted);
}

/** `/gateway audit <url>`: every field typed, so no form. */
async function auditTyped({ slack, driver }: Bot, url: string): Promise<void> {
  const posted = slack.messages(CHANNEL).length;
  await driver.command(`audit ${url}`, { user: MEMBER, channel: CHANNEL });
  await resultInThread(slack, url, posted);
}

async function bind({ slack, driver }: Bot): Promise<void> {
  await driver.command('use harbor-law', { user: ADMIN, channel: CHANNEL });
  await slack.waitFor(() => slack.messages(CHANNEL).find((m) => m.text.includes('now bound to')), {
    what: 'the binding',
  });
}

interface Window {
  name: string;
  files: Map<string, RanFile>;
  ms: number;
}

/** Runs `run` between two takeCoverage calls: the src/ files it ran, and how long it took. */
async function measured(dir: string, name: string, run: () => Promise<void>): Promise<Window> {
  takeCoverage(dir);
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  return { name, files: ranFiles(takeCoverage(dir)), ms };
}

function print(window: Window, idle: ReadonlySet<string>): void {
  const byFolder = new Map<string, string[]>();
  for (const file of window.files.keys()) {
    const folder = file.includes(path.sep) ? (file.split(path.sep)[0] ?? '.') : '.';
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), file]);
  }
  const count = window.files.size;
  const verdict = count <= GOAL_FILES ? 'ok' : 'over';
  // Timers and pollers (the scheduler's poll, Home's publisher) run in any window: said apart, still counted.
  const alsoIdle = [...window.files.keys()].filter((f) => idle.has(f)).length;
  console.log(
    `\n${window.name}: ${count} files in ${byFolder.size} folders (goal ≤ ${GOAL_FILES}: ${verdict}; ${Math.round(window.ms)} ms); ${count - alsoIdle} without the ${alsoIdle} that also run idle (*)`,
  );
  for (const [folder, files] of [...byFolder].sort(([a], [b]) => a.localeCompare(b))) {
    const names = files.map((f) => `${path.basename(f)}${idle.has(f) ? '*' : ''}`);
    console.log(`  ${`${folder}/`.padEnd(14)} ${files.length}  ${names.join(', ')}`);
    if (!SHOW_FUNCTIONS) continue;
    for (const file of files)
      console.log(`      ${path.basename(file)}: ${window.files.get(file)?.functions.join(', ')}`);
  }
  printFloor(window, byFolder);
}

const MAX_FILE_LINES = 350;

/**
 * The fewest files the path could cross with no file over MAX_FILE_LINES and no file holding two folders' code
 * (a folder is a feature, a surface or a layer: CONTRIBUTING.md): folder by folder, its path files' lines, and the
 * lines of the functions that ran in them alone (as if every line not on the path went elsewhere).
 */
function printFloor(window: Window, byFolder: Map<string, string[]>): void {
  let whole = 0;
  let ran = 0;
  let wholeLines = 0;
  let ranLines = 0;
  for (const files of byFolder.values()) {
    const lines = files.reduce((n, f) => n + readFileSync(path.join(SRC, f), 'utf8').split('\n').length, 0);
    const ranIn = files.reduce((n, f) => n + (window.files.get(f)?.lines ?? 0), 0);
    whole += Math.ceil(lines / MAX_FILE_LINES);
    ran += Math.ceil(ranIn / MAX_FILE_LINES);
    wholeLines += lines;
    ranLines += ranIn;
  }
  console.log(
    `  fewest files at ${MAX_FILE_LINES} lines a file, a folder's code kept in its folder: ${whole} for these files whole (${wholeLines} lines), ${ran} for the functions that ran alone (${ranLines} lines)`,
  );
}

/** The measurement itself, in the process that runs under NODE_V8_COVERAGE. */
async function measure(dir: string): Promise<{ form: number; typed: number }> {
  const bot = await startBot();
  try {
    await bind(bot);
    // Warm-up: every module loaded, every cache (catalogue, users.info, auth.test) filled, the worker started.
    await auditByForm(bot, 'https://harbor-law.example/warm-form');
    await auditTyped(bot, 'https://harbor-law.example/warm-typed');
    const form = await measured(dir, '/gateway audit → form → submission → job → result', () =>
      auditByForm(bot, 'https://harbor-law.example/services'),
    );
    const typed = await measured(dir, '/gateway audit <url> → job → result (no form)', () =>
      auditTyped(bot, 'https://harbor-law.example/about'),
    );
    const idle = await measured(dir, 'idle, as long as the form path', async () => {
      await new Promise((resolve) => setTimeout(resolve, form.ms));
    });
    const idleSet = new Set(idle.files.keys());
    print(form, idleSet);
    print(typed, idleSet);
    console.log(
      `\n(* also ran in an idle window of ${Math.round(idle.ms)} ms: ${[...idle.files.keys()].join(', ') || 'none'})`,
    );
    return { form: form.files.size, typed: typed.files.size };
  } finally {
    await bot.stop();
  }
}

export async function main(): Promise<void> {
  const dir = process.env.NODE_V8_COVERAGE;
  if (dir) {
    await measure(dir);
    return;
  }
  // Coverage must be on from the process's start: run this script again with it set, into a fresh directory.
  const fresh = mkdtempSync(path.join(tmpdir(), 'audit-path-'));
  try {
    const script = process.argv[1] ?? fileURLToPath(import.meta.url);
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, '--enable-source-maps', script, ...process.argv.slice(2)],
      {
        stdio: 'inherit',
        env: { ...process.env, NODE_V8_COVERAGE: fresh },
      },
    );
    if (child.status !== 0) process.exitCode = child.status ?? 1;
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, async () => {
  await main();
  process.exit(process.exitCode ?? 0);
});
