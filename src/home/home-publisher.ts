import type { Overview, OverviewReader } from '../overview/index.js';
import type { BotServices } from '../services.js';
import { slackRetryAfterMs } from '../slack/slack-poster.js';
import type { HomeMarks } from '../store/index.js';
import { buildHomeNotForYou, buildHomeView } from '../views/home.js';

/**
 * Publishes Home tabs: when someone opens theirs, after their click on it, and when something in it changed
 * for them (home-marks.ts says whose, from any process). The last state always wins: a publish names the hash
 * of the view it replaces, and when Slack says another publish came between (hash_conflict), the state is
 * read again and published over it. A 429 puts the person back for as long as Slack asked.
 */

/** How often the web role looks for marks that are due. */
const POLL_MS = 250;
/** People published at once per look. */
const BATCH = 20;
/** After a failure other than a 429, the person's tab is tried again this much later. */
const FAILED_RETRY_MS = 30_000;

/** A person's tab: their overview, rendered; someone who may not use the bot sees where they sign off, if anywhere. */
export function homeTab(overview: Overview) {
  return overview.kind === 'person'
    ? buildHomeView(overview.data)
    : buildHomeNotForYou(overview.signoffChannels);
}

export interface HomePublisher {
  /**
   * Publishes `user`'s tab now. `opened`: they opened it or clicked on it (not a re-publish), so it is kept
   * current for them for the next 7 days; `hash`: the view Slack last showed them (from the open event).
   */
  publish(user: string, options?: { opened?: boolean; hash?: string | undefined }): Promise<void>;
  /** Starts looking for due marks (the web role). */
  start(): void;
  stop(): Promise<void>;
}

/** One publish of `user`'s tab over the view Slack showed them, and again over a publish that came between. */
async function publishOnce(
  services: BotServices,
  marks: HomeMarks,
  overview: OverviewReader,
  user: string,
  opened: boolean,
  hash: string | undefined,
): Promise<void> {
  const seen = await overview.read(user);
  if (seen.kind === 'person' && opened) await marks.opened(user, seen.approver);
  const last = hash ?? (await marks.lastHash(user)) ?? undefined;
  let answer = await services.outbound.publishHome(user, homeTab(seen), last);
  if ('conflict' in answer) {
    // Another publish landed since: what Redis says now is at least as new as what it showed.
    answer = await services.outbound.publishHome(user, homeTab(await overview.read(user)));
  }
  if ('hash' in answer && answer.hash) await marks.setHash(user, answer.hash);
}

export function homePublisher(
  services: BotServices,
  marks: HomeMarks,
  overview: OverviewReader,
  options: { pollMs?: number } = {},
): HomePublisher {
  const log = services.logger.child({ part: 'home' });
  // A Redis outage is the one outage line's to report (every poll would otherwise log it, every 250 ms).
  const orOutage = (message: string) => services.redisOutage.otherwise((error) => log.warn(message, error));
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function publish(
    user: string,
    options: { opened?: boolean; hash?: string | undefined } = {},
  ): Promise<void> {
    try {
      await publishOnce(services, marks, overview, user, options.opened ?? false, options.hash);
    } catch (error) {
      const wait = slackRetryAfterMs(error);
      orOutage(`could not publish the Home tab of ${user}${wait ? `; Slack asked to wait ${wait} ms` : ''}`)(
        error as Error,
      );
      await marks.later(user, wait ?? FAILED_RETRY_MS).catch(() => {});
    }
  }

  async function tick(): Promise<void> {
    const due = await marks.takeDue(BATCH);
    await Promise.all(due.map((user) => publish(user)));
  }

  return {
    publish,
    start() {
      timer = setInterval(() => {
        if (running) return;
        running = tick()
          .catch(orOutage('could not read the Home tabs to publish'))
          .finally(() => {
            running = undefined;
          });
      }, options.pollMs ?? POLL_MS);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
