/**
 * `npm run bench`: every benchmark, one after the other, each printing its figures against its baseline in the
 * same run. Not part of `npm test` (figures belong here, not in timed tests).
 */
import { main as ackBench } from './ack.js';
import { main as approvalBench } from './approval.js';
import { main as chartBench } from './chart.js';
import { main as digestBench } from './digest.js';
import { main as faultStallBench } from './fault-stall.js';
import { main as homeBench } from './home.js';
import { main as rankingsBench } from './keyword-rankings.js';
import { main as mcpBench } from './mcp.js';
import { main as paginationBench } from './pagination.js';
import { main as queueBench } from './queue.js';
import { main as queueClusterBench } from './queue-cluster.js';
import { main as tokensBench } from './tokens.js';

const benches: Array<[name: string, run: (argv: readonly string[]) => Promise<unknown>]> = [
  ['pagination', paginationBench],
  ['ack latency', ackBench],
  ['queue', queueBench],
  ['queue on a Redis Cluster beside one Redis', queueClusterBench],
  ['rankings digest', digestBench],
  ['approval click → POST', approvalBench],
  ['keyword rankings', rankingsBench],
  ['one gateway 500 and the rest of the queue', faultStallBench],
  ['Home tab: open → publish, and publishes under 500 approval transitions a minute', homeBench],
  ['assistant tools (MCP): read overhead, action to job reference', mcpBench],
  ['charts: render time, against the rankings read, and memory', chartBench],
  ['assistant tokens: one person’s list and revoke among 3,000, against a full scan', tokensBench],
];

for (const [name, run] of benches) {
  console.log(`\n=== ${name}`);
  await run(process.argv.slice(2));
  // Let the previous benchmark's child processes exit and the machine settle before the next one measures.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
}
process.exit(0);
