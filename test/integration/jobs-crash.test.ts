import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, created, type JobsHarness, startJobsHarness } from '../fixtures/jobs-harness.js';
import { nodeArgsFor } from '../helpers/compiled.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

/** BullMQ is at-least-once: a worker that dies mid-POST leaves a job that runs again and must reconcile. */

let h: JobsHarness;
let child: ChildProcess | undefined;

beforeAll(async () => {
  h = await startJobsHarness('jobs-crash', { workers: false });
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await h?.close();
});

function startChildWorker(): Promise<ChildProcess> {
  const proc = spawn(process.execPath, nodeArgsFor('test/fixtures/jobs-worker.ts'), {
    env: {
      ...process.env,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: h.prefix,
      SANDBOX_URL: h.sandbox.url,
      SLACK_API_URL: h.slack.apiUrl,
      SLACK_TOKEN: h.slack.botToken,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`worker exited early with ${code}`)));
    proc.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve(proc);
    });
  });
}

describe('a worker killed mid-POST', () => {
  it('leaves a job that another worker reprocesses, reconciles and finishes with exactly one record', async () => {
    child = await startChildWorker();
    h.sandbox.setKnobs({ latencyMs: 1_200 });
    const data = h.jobData('generate_blog', { keyword: 'tankless water heater' });
    await h.queue.enqueue(data);

    // The POST has reached the gateway, which holds it (latency) and will create the record anyway.
    await h.slack.waitFor(() => h.sandbox.requests().some((r) => r.method === 'POST'), { timeoutMs: 10_000 });
    child.kill('SIGKILL');
    await new Promise((resolve) => child?.once('exit', resolve));
    h.sandbox.setKnobs({ latencyMs: 0 });
    await h.slack.waitFor(() => created(h.sandbox, 'generate_blog') === 1, { timeoutMs: 5_000 });
    expect((await h.queue.findJob(data.jobKey))?.data.step).toBe('posting');

    h.startWorkers({ stalledIntervalMs: 200 });
    const { state, job } = await h.settled(data.jobKey, 15_000);
    expect(state).toBe('completed');
    expect(job.returnvalue).toMatchObject({ outcome: 'done', reconciled: true });
    expect(created(h.sandbox, 'generate_blog')).toBe(1);
    expect(h.sandbox.requests().filter((r) => r.method === 'POST')).toHaveLength(1);
    const status = h.slack.messages(CHANNEL).find((m) => m.ts === job.data.statusTs);
    expect(status?.text).toContain('done');
    // The child worker starts through tsx (seconds on a loaded machine) and the waits above add up to 30 s:
    // more than the default 20 s (14.9 s seen in a loaded suite run).
  }, 60_000);
});
