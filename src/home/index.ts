import { overviewReader } from '../overview/index.js';
import type { BotServices } from '../services.js';
import type { SlackRoutes } from '../slack/slack-routes.js';
import { claimOnce, HomeMarks } from '../store/index.js';
import { registerHomeButtons } from './home-buttons.js';
import { homePublisher } from './home-publisher.js';
import { registerChannelSettings } from './home-settings.js';

export { HOME_ACTION_IDS } from './home-buttons.js';
export { HOME_VIEW_IDS } from './home-settings.js';

/**
 * The App Home tab, a surface like commands/ and interactions/: it reads the event or the click, calls the
 * core, and publishes the person's tab through slack/. Opening the tab publishes it from Redis alone; a
 * twice-delivered open publishes once. The tab is published again when something in it changes for the person
 * (home-marks.ts), by whichever web process takes the mark first.
 */

/** Longer than Slack retries an event for. */
const OPEN_CLAIM_SEC = 3_600;

export function register(
  routes: SlackRoutes,
  services: BotServices,
  options: { pollMs?: number } = {},
): { stop(): Promise<void> } {
  const prefix = services.config.redis.prefix;
  const marks = new HomeMarks(services.redis, prefix);
  const publisher = homePublisher(
    services,
    marks,
    overviewReader(services, marks),
    options.pollMs ? { pollMs: options.pollMs } : {},
  );
  routes.homeOpened(async ({ event, body, logger }) => {
    if (event.tab !== 'home') return;
    const id = body.event_id || `${event.user}:${event.event_ts}`;
    if (!(await claimOnce(services.redis, prefix, `home-open:${id}`, OPEN_CLAIM_SEC))) {
      logger.debug(`app_home_opened ${id} delivered again; published once already`);
      return;
    }
    // A first visit has no view yet, so no hash to publish over.
    const hash = (event.view as { hash?: string } | undefined)?.hash;
    await publisher.publish(event.user, { opened: true, hash });
  });
  registerHomeButtons(routes, services, marks, publisher);
  registerChannelSettings(routes, services);
  publisher.start();
  return { stop: () => publisher.stop() };
}
