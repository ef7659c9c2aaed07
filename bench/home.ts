import { homeTab } from '../src/home/home-publisher.js';
import { SlackDriver } from '../src/local/driver.js';
import { startFakeSlack } from '../src/local/fake-slack/index.js';
import { ensureRedis } from '../src/local/redis-local.js';
import { silentLogger } from '../src/logger.js';
import { overviewReader } from '../src/overview/index.js';
import { createRedis, deleteByPrefix } from '../src/redis/connection.js';
import { startRuntime } from '../src/runtime.js';
import { HomeMarks } from '../src/store/home-marks.js';
import { BENCH_ADMIN as ADMIN, benchBotConfig, BENCH_SECRET as SECRET } from './bench-bot.js';
import { runIfMain } from './run-if-main.js';

const APPROVERS = ['UADMIN', 'UAPPR1', 'UAPPR2', 'UAPPR3', 'UAPPR4'];
const REQUESTERS = Array.from({ length: 15 }, (_, i) => `UREQ${i}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** The words a tab shows, section by section (block ids and hashes aside). */
function textsOf(blocks: ReadonlyArray<{ text?: { text?: string } }>): string[] {
  return blocks.map((b) => b.text?.text ?? '').filter(Boolean);
}

interface HomeFigures {
  open: { samples: number; p50Ms: number; p95Ms: number };
  load: { transitions: number; seconds: number; publishesPerMinute: number; wrongTabs: string[] };
  ok: boolean;
  summary: string;
}

async function runHomeBench(samples: number, seconds: number): Promise<HomeFigures> {
  const redisInfo = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const slack = await startFakeSlack();
  for (const id of [...APPROVERS, ...REQUESTERS])
    if (id !== ADMIN) slack.simulate.addUser({ id, name: id.toLowerCase(), real_name: id, tz: 'UTC' });
  const { prefix, config } = benchBotConfig('home', slack, redisInfo.url, {
    GATEWAY_APPROVERS: APPROVERS.join(','),
    LOG_LEVEL: 'error',
  });
  // The web role alone, as before: the in-process sandbox is for one process, so the role is chosen here.
  const runtime = await startRuntime(config, silentLogger(), { roles: ['web'] });
  const { services } = runtime;
  const driver = new SlackDriver({
    eventsUrl: `http://127.0.0.1:${runtime.port}/slack/events`,
    signingSecret: SECRET,
    slack,
  });
  const published = (user: string) =>
    slack.calls.filter((c) => c.method === 'views.publish' && c.ok && c.args.user_id === user).length;
  try {
    // 20 bound channels, 50 pending approvals waiting for the admin, 1,000 recent jobs of theirs.
    const channels = Array.from({ length: 20 }, (_, i) => `CHOME${i}`);
    for (const [i, channel] of channels.entries())
      await services.bindings.set({
        channel,
        clientId: 'harbor-law',
        clientLabel: `Harbor Law ${i}`,
        boundBy: ADMIN,
        boundAt: new Date().toISOString(),
      });
    for (let i = 0; i < 50; i++)
      await services.approvals.createExclusive({
        action: 'deploy_blog',
        label: 'Blog deploy',
        clientId: 'harbor-law',
        clientLabel: 'Harbor Law',
        fields: { post_id: `p${i}` },
        hash: `open-${i}`,
        preview: { kind: 'deploy', postId: `p${i}` },
        requestedBy: REQUESTERS[i % REQUESTERS.length] ?? '',
        channel: channels[i % channels.length] ?? '',
        ttlMs: 3_600_000,
      });
    for (let i = 0; i < 1_000; i++)
      await services.queue.enqueue({
        jobKey: `bench-home-${i}`,
        action: 'seo_audit',
        clientId: 'harbor-law',
        clientLabel: 'Harbor Law',
        fields: { url: `https://harbor-law.example/page-${i}` },
        replyTo: { kind: 'slack', channel: channels[i % channels.length] ?? '' },
        requestedBy: ADMIN,
        enqueuedAt: Date.now(),
      });

    // 1. Open → publish.
    const latencies: number[] = [];
    for (let i = 0; i < samples + 5; i++) {
      const before = published(ADMIN);
      const sent = performance.now();
      await driver.homeOpened({ user: ADMIN });
      await slack.waitFor(() => published(ADMIN) > before, { what: 'the Home tab' });
      if (i >= 5) latencies.push(performance.now() - sent);
      await sleep(20);
    }
    latencies.sort((a, b) => a - b);

    // 2. 500 approval transitions a minute; everyone with Home open.
    for (const user of [...new Set([...APPROVERS, ...REQUESTERS])]) await driver.homeOpened({ user });
    await sleep(2_500);
    const calls = slack.calls.length;
    const transitions = Math.round((500 * seconds) / 60);
    const started = performance.now();
    const open: Array<{ id: string; channel: string }> = [];
    for (let i = 0; i < transitions; i++) {
      const due = started + (i * seconds * 1_000) / transitions;
      await sleep(Math.max(0, due - performance.now()));
      const reject = i % 2 === 1 && open.length > 0;
      if (reject) {
        const target = open.shift();
        if (target)
          await services.approvals.transition(target.id, target.channel, 'rejected', { actor: ADMIN });
      } else {
        const made = await services.approvals.createExclusive({
          action: 'deploy_blog',
          label: 'Blog deploy',
          clientId: 'harbor-law',
          clientLabel: 'Harbor Law',
          fields: { post_id: `load-${i}` },
          hash: `load-${i}`,
          preview: { kind: 'deploy', postId: `load-${i}` },
          requestedBy: REQUESTERS[i % REQUESTERS.length] ?? '',
          channel: channels[i % channels.length] ?? '',
          ttlMs: 3_600_000,
        });
        if ('created' in made) open.push({ id: made.created.id, channel: made.created.channel });
      }
    }
    const elapsed = performance.now() - started;
    const stamps = slack.calls
      .slice(calls)
      .filter((c) => c.method === 'views.publish' && c.ok)
      .map((c) => c.at)
      .sort((a, b) => a - b);
    // The busiest minute: the most publishes in any 60 s of a minute's run, or, for a shorter run, four times the
    // most in any 15 s (any minute is four such spans; an overestimate, as publishes land with some jitter).
    const busiest = (spanMs: number) => {
      let most = 0;
      for (let i = 0, j = 0; i < stamps.length; i++) {
        while ((stamps[i] ?? 0) - (stamps[j] ?? 0) >= spanMs) j++;
        most = Math.max(most, i - j + 1);
      }
      return most;
    };
    const minute = seconds >= 60;
    const perMinute = minute ? busiest(60_000) : busiest(15_000) * 4;
    // Then the marks left run out (a window or two of the budget), and each tab is compared with Redis.
    const marks = new HomeMarks(services.redis, prefix);
    for (let waited = 0; waited < 40_000; waited += 250) {
      if ((await services.redis.zcard(`${prefix}:home:due`)) === 0) break;
      await sleep(250);
    }
    await sleep(500);
    const reader = overviewReader(services, marks);
    const wrongTabs: string[] = [];
    for (const user of [...new Set([...APPROVERS, ...REQUESTERS])]) {
      const expected = textsOf(
        homeTab(await reader.read(user)).blocks as Array<{ text?: { text?: string } }>,
      );
      const shown = textsOf(slack.home(user)?.view.blocks ?? []);
      // Dates in words and the oldest job's wait move with the clock; the rest must match.
      const strip = (texts: string[]) =>
        texts.map((t) => t.replace(/<!date\^[^>]+>/g, '').replace(/has waited \d+ s/, 'has waited'));
      if (JSON.stringify(strip(expected)) !== JSON.stringify(strip(shown))) wrongTabs.push(user);
    }
    const open1 = {
      samples: latencies.length,
      p50Ms: percentile(latencies, 50),
      p95Ms: percentile(latencies, 95),
    };
    const ok = open1.p95Ms < 1_500 && perMinute <= 80 && wrongTabs.length === 0;
    const summary =
      `app_home_opened → views.publish (20 channels, 50 pending approvals, 1,000 jobs): p50 ${open1.p50Ms.toFixed(1)} ms, p95 ${open1.p95Ms.toFixed(1)} ms (${open1.samples} opens; goal p95 < 1,500 ms)\n` +
      `${transitions} approval transitions in ${(elapsed / 1_000).toFixed(1)} s (500 a minute), 20 people with Home open: ${perMinute} publishes in the busiest minute${minute ? '' : ' (4 × the busiest 15 s)'}, ${stamps.length} in all (goal ≤ 80 a minute); tabs not showing Redis's state at the end: ${wrongTabs.length ? wrongTabs.join(', ') : 'none'}\n` +
      `goals: ${ok ? 'met' : 'MISSED'}`;
    return {
      open: open1,
      load: { transitions, seconds: elapsed / 1_000, publishesPerMinute: perMinute, wrongTabs },
      ok,
      summary,
    };
  } finally {
    await runtime.stop(5_000);
    await slack.close();
    const redis = createRedis(redisInfo.url);
    await deleteByPrefix(redis, prefix).catch(() => {});
    await redis.quit();
    await redisInfo.stop();
  }
}

/** Entry for `npx tsx bench/home.ts` and for bench/run-all.ts. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<HomeFigures> {
  const arg = (name: string, fallback: number) =>
    Number(
      new RegExp(`^--${name}=(\\d+)$`).exec(argv.find((a) => a.startsWith(`--${name}=`)) ?? '')?.[1] ??
        fallback,
    );
  const figures = await runHomeBench(arg('samples', 100), arg('seconds', 60));
  console.log(figures.summary);
  if (argv.includes('--strict') && !figures.ok) process.exitCode = 1;
  return figures;
}

runIfMain(import.meta.url, () => main());
