/**
 * `npm run faults`: the fault suite against the bot's real processes (web and worker roles as child
 * processes), the sandbox gateway's fault knobs and the local Slack stand-in, on a private redis-server with
 * AOF on. Prints one table row per fault: jobs lost, duplicate records at the gateway, jobs ended silently,
 * unescaped mentions or links, Block Kit violations and crashes (the goal of each is 0), and the time taken.
 *
 *   npm run faults              the small size (CI)
 *   npm run faults -- --full    the full size: 1,000 jobs, 20 kills, 10,000 fuzz cases, the 1,000-command
 *                               multi-process run
 *   npm run faults -- --only=fuzz,redis   some rows only (gateway, kill, redis, slack, fuzz, approvals,
 *                                        digests, hostile, mcp, flood, signin, cluster, sentinel,
 *                                        multi, fleetread)
 *
 * Exits 1 when a goal column is not 0, and prints what the audit found under the table.
 */
import { runMultiProcess } from '../fleet/multi-process.js';
import { PrivateRedis } from '../fleet/private-redis.js';
import { concurrentApprovals } from './approvals.js';
import { assistantFlood } from './assistant-flood.js';
import { doubledDigests } from './digests.js';
import { clusterMasterKilled, sentinelPrimaryKilled } from './failover.js';
import { fleetReadCap } from './fleet-read.js';
import { fuzzRow } from './fuzz.js';
import { hostileGateway } from './hostile.js';
import { toolCallsWithCommands } from './mcp.js';
import { type FaultRow, notYetBuilt } from './row.js';
import { gatewayFaults, killWorkers, restartRedis, slackFaults } from './scenarios.js';
import { signInAbuse } from './sign-in.js';

const full = process.argv.includes('--full');
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const SIZES = full
  ? {
      jobs: 1_000,
      killJobs: 500,
      kills: 20,
      redisJobs: 300,
      slackJobs: 300,
      fuzz: 10_000,
      approvalCards: 10,
      digestPeriods: 30,
      failoverJobs: 300,
      multi: 1_000,
      hostile: 1_000,
      mcp: 1_000,
      flood: 1_000,
      fleetRead: 500,
      signIn: {
        registrations: 1_000,
        badCodes: 500,
        grants: 40,
        commands: 200,
        floods: { oversized: 500, authorizations: 3_000, senders: 300, signInPages: 200 },
      },
    }
  : {
      jobs: 100,
      killJobs: 100,
      kills: 5,
      redisJobs: 60,
      slackJobs: 60,
      fuzz: 500,
      approvalCards: 3,
      digestPeriods: 5,
      failoverJobs: 40,
      multi: 200,
      hostile: 200,
      mcp: 200,
      flood: 200,
      fleetRead: 100,
      signIn: {
        registrations: 1_000,
        badCodes: 200,
        grants: 20,
        commands: 200,
        floods: { oversized: 500, authorizations: 3_000, senders: 300, signInPages: 200 },
      },
    };
const SEED = Number(process.env.FAULTS_SEED ?? 20_261_123);

const wanted = (name: string) => !only || only.includes(name);

async function main(): Promise<void> {
  const started = Date.now();
  process.stdout.write(`fault suite, ${full ? 'full' : 'small'} size: ${JSON.stringify(SIZES)}\n`);
  const redis = await PrivateRedis.start();
  const rows: FaultRow[] = [];
  const run = async (name: string, row: () => Promise<FaultRow>) => {
    if (!wanted(name)) return;
    process.stdout.write(`running: ${name} …\n`);
    try {
      rows.push(await row());
    } catch (error) {
      rows.push({
        ...notYetBuilt(name, '', `the run itself failed: ${(error as Error).message.split('\n')[0]}`),
        lost: '?',
        duplicates: '?',
        silent: '?',
        unescaped: '?',
        blockKit: '?',
        crashes: '?',
        details: [String((error as Error).stack ?? error).slice(0, 2_000)],
      });
    }
  };
  try {
    await run('gateway', () => gatewayFaults(redis, SIZES.jobs));
    await run('kill', () => killWorkers(redis, SIZES.killJobs, SIZES.kills));
    await run('redis', () => restartRedis(redis, SIZES.redisJobs));
    await run('slack', () => slackFaults(redis, SIZES.slackJobs));
    await run('fuzz', () => fuzzRow(redis, SIZES.fuzz, SEED));
    await run('approvals', () => concurrentApprovals(redis, SIZES.approvalCards));
    await run('approvals-both', () => concurrentApprovals(redis, SIZES.approvalCards, 'both'));
    await run('digests', () => doubledDigests(redis, SIZES.digestPeriods));
    await run('hostile', () => hostileGateway(redis, SIZES.hostile));
    await run('mcp', () => toolCallsWithCommands(redis, SIZES.mcp));
    await run('flood', () => assistantFlood(redis, SIZES.flood));
    await run('fleetread', () => fleetReadCap(redis, SIZES.fleetRead));
    await run('signin', () => signInAbuse(redis, SIZES.signIn));
    await run('cluster', () => clusterMasterKilled(SIZES.failoverJobs));
    await run('sentinel', () => sentinelPrimaryKilled(SIZES.failoverJobs));
    if (SIZES.multi > 0 && wanted('multi')) {
      await run('multi', async () => {
        const r = await runMultiProcess(redis.url, SIZES.multi);
        return {
          name: '2 web + 3 worker + 1 scheduler processes',
          size: `${SIZES.multi} commands (${r.sizes.actions} jobs)`,
          lost: r.audit.lost,
          // A scheduled period posted twice is a duplicate as much as a second record at the gateway.
          duplicates: r.audit.duplicates + r.doubledSchedulerRuns,
          silent: r.audit.silent,
          unescaped: r.unescaped,
          blockKit: r.blockKit,
          crashes: r.crashes,
          ms: r.ms,
          note: `jobs per worker ${r.perWorker.join('/')}; most POSTs for one job ${r.maxPostsPerJob}; scheduler healthy ${r.schedulerHealthy}; ${r.digestRuns} scheduled digests, ${r.doubledSchedulerRuns} periods doubled`,
          details: [...r.audit.details, ...r.crashDetails].slice(0, 12),
          // Goals beyond the columns: every worker took work, no job was POSTed twice, the scheduler lived.
          missed: [
            ...(r.perWorker.length === 3 && r.perWorker.every((n) => n > 0) ? [] : ['a worker took no job']),
            ...(r.maxPostsPerJob <= 1 ? [] : [`a job was POSTed ${r.maxPostsPerJob} times`]),
            ...(r.schedulerHealthy && r.digestRuns >= 2 ? [] : ['the scheduler did not run the digest']),
          ],
        };
      });
    }
  } finally {
    await redis.stop();
  }
  printTable(rows);
  process.stdout.write(`\nwhole run: ${((Date.now() - started) / 1_000).toFixed(1)} s\n`);
  const missed = rows.filter(
    (r) =>
      r.missed?.length ||
      [
        r.lost,
        r.duplicates,
        r.silent,
        r.unescaped,
        r.blockKit,
        r.crashes,
        r.unanswered,
        r.slowAcks,
        r.slowReads,
      ].some((v) => (typeof v === 'number' ? v !== 0 : v === '?')),
  );
  for (const r of rows)
    if (r.missed?.length) process.stdout.write(`- ${r.name}: MISSED ${r.missed.join('; ')}\n`);
  for (const r of rows.filter((x) => x.details.length)) {
    process.stdout.write(`\n${r.name}:\n${r.details.map((d) => `  ${d.slice(0, 600)}`).join('\n')}\n`);
  }
  process.exit(missed.length ? 1 : 0);
}

function printTable(rows: FaultRow[]): void {
  const head = [
    'fault',
    'size',
    'jobs lost',
    'duplicate records',
    'ended silently',
    'unescaped',
    'Block Kit',
    'crashes',
    'unanswered 60 s',
    'peak worker RSS',
    'acks > 3 s',
    'reads > 1.5×',
    'assistant 429/503',
    'time',
  ];
  const body = rows.map((r) => [
    r.name,
    r.size,
    String(r.lost),
    String(r.duplicates),
    String(r.silent),
    String(r.unescaped),
    String(r.blockKit),
    String(r.crashes),
    r.unanswered === undefined ? '—' : String(r.unanswered),
    r.peakWorkerRssMb === undefined
      ? '—'
      : typeof r.peakWorkerRssMb === 'number'
        ? `${r.peakWorkerRssMb} MB`
        : r.peakWorkerRssMb,
    ...[r.slowAcks, r.slowReads, r.assistantRefused].map((v) => (v === undefined ? '—' : String(v))),
    r.ms === undefined ? '—' : `${(r.ms / 1_000).toFixed(1)} s`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  process.stdout.write(`\n${line(head)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n`);
  for (const row of body) process.stdout.write(`${line(row)}\n`);
  process.stdout.write('\n');
  for (const r of rows) if (r.note) process.stdout.write(`- ${r.name}: ${r.note}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`fault suite failed: ${String((error as Error).stack ?? error)}\n`);
  process.exit(2);
});
