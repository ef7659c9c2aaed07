/**
 * bench/fleet.ts --curve's second table: one client of 10k, 100k and 1M keyword rows (the sandbox's synthetic
 * clients, 5,000 keywords observed for 2, 20 and 200 days), its rankings digest's scan (the mark read, every row
 * paged and folded, the diff, the next mark written) beside paging the same rows alone, in this process: time and
 * peak RSS (sampled every 10 ms, after a full GC before each).
 */
import { randomUUID } from 'node:crypto';
import { gatherDigest } from '../src/digests/gather.js';
import { DigestStore } from '../src/digests/store.js';
import { GatewayClient } from '../src/gateway/client.js';
import { SANDBOX_KEYS } from '../src/gateway/spec.js';
import { createRedis, deleteByPrefix } from '../src/redis/connection.js';
import { findGc } from './bench-child.js';

const SIZES = [
  { rows: '10k', clientId: 'synth-5000x2-900' },
  { rows: '100k', clientId: 'synth-5000x20-901' },
  { rows: '1M', clientId: 'synth-5000x200-902' },
];

async function measured(work: () => Promise<unknown>): Promise<{ sec: number; rssMb: number }> {
  findGc()();
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const started = performance.now();
  await work();
  clearInterval(timer);
  return {
    sec: (performance.now() - started) / 1_000,
    rssMb: Math.max(peak, process.memoryUsage().rss) / 2 ** 20,
  };
}

export async function runClientCurve(gatewayUrl: string): Promise<string> {
  const gateway = new GatewayClient({ baseUrl: gatewayUrl, apiKey: SANDBOX_KEYS.full, connections: 1 });
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `bench-fleet-client-${randomUUID().slice(0, 8)}`;
  const store = new DigestStore(redis, prefix);
  const lines = ['rows | paging alone | rankings digest | ratio | digest peak RSS (this process)'];
  try {
    for (const { rows, clientId } of SIZES) {
      const paging = await measured(async () => {
        for await (const _row of gateway.rows('keywords', {
          clientId,
          order: 'tracked_at',
          direction: 'asc',
          scanLimit: 5_000_000,
        }));
      });
      const digest = await measured(() =>
        gatherDigest(gateway, store, { channel: `C${rows}`, kind: 'rankings', clientId, filters: {} }).then(
          (g) =>
            store.advance(`C${rows}`, 'rankings', g.mark, { clientId, since: '', baselineAt: '' }, undefined),
        ),
      );
      lines.push(
        `${rows} | ${paging.sec.toFixed(1)} s, ${paging.rssMb.toFixed(0)} MB | ${digest.sec.toFixed(1)} s | ${(digest.sec / paging.sec).toFixed(2)}× | ${digest.rssMb.toFixed(0)} MB`,
      );
    }
  } finally {
    await gateway.close();
    await deleteByPrefix(redis, prefix);
    await redis.quit();
  }
  return `${lines.join('\n')}\n`;
}
