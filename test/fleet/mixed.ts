import { markerOf, type Sent, send } from './audit.js';
import { FLEET_ADMIN, FLEET_MEMBER, type Fleet } from './fleet.js';

/**
 * A mixed load as people make it: actions of several kinds (each with a unique marker its status message and
 * its record carry), reads, status, jobs and help, sent through the web processes in turn, a few at a time.
 */

export const FLEET_CLIENT = 'bright-dental';
const SITE = 'https://bright-dental.example';

type Make = (marker: string) => { text: string; action?: string };

/** Actions that are not safe to repeat come first: those are where a doubled POST would show. */
export const ACTION_COMMANDS: Make[] = [
  (m) => ({ text: `map "topic ${m}"`, action: 'generate_topical_map' }),
  (m) => ({ text: `optimize ${SITE}/${m}`, action: 'optimize_page' }),
  (m) => ({ text: `outreach https://prospect.example/${m}`, action: 'generate_outreach_email' }),
  (m) => ({ text: `gbp "offer ${m}"`, action: 'generate_gbp_post' }),
  (m) => ({ text: `image "cover ${m}"`, action: 'generate_blog_image' }),
  (m) => ({ text: `audit ${SITE}/a/${m}`, action: 'seo_audit' }),
  (m) => ({ text: `index ${SITE}/i/${m}`, action: 'index_url' }),
];

const OTHER_COMMANDS: Make[] = [
  () => ({ text: 'keywords limit=3' }),
  () => ({ text: 'reviews limit=2' }),
  () => ({ text: 'status' }),
  () => ({ text: 'jobs' }),
  () => ({ text: 'help audit' }),
];

/** Seven in ten commands ask for an action; the rest read or ask. */
export function mixedCommand(i: number, tag = 'fx'): { marker: string; text: string; action?: string } {
  const marker = markerOf(i, tag);
  const pick = i % 10 < 7 ? ACTION_COMMANDS[i % 10] : OTHER_COMMANDS[i % OTHER_COMMANDS.length];
  if (!pick) throw new Error('mixed: no command');
  return { marker, ...pick(marker) };
}

/** Binds the channel to the fleet's client as the admin and waits until it is bound. */
export async function bindChannel(fleet: Fleet, channel: string): Promise<void> {
  await fleet.driver().command(`use ${FLEET_CLIENT}`, { user: FLEET_ADMIN, channel });
  await fleet.slack.waitFor(() => fleet.slack.messages(channel).find((m) => m.text.includes('now bound')), {
    what: `${channel} bound`,
    timeoutMs: 15_000,
  });
}

/** Sends `count` commands from `make`, `inFlight` at a time; `between` runs before each send (fault hooks). */
export async function sendAll(
  fleet: Fleet,
  count: number,
  make: (i: number) => { marker: string; text: string; action?: string },
  options: { channel: string; inFlight?: number; between?: (i: number) => Promise<void> | void },
): Promise<Sent[]> {
  const sent: Sent[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      await options.between?.(i);
      const { marker, text, action } = make(i);
      sent.push(
        await send(fleet, text, {
          marker,
          channel: options.channel,
          user: FLEET_MEMBER,
          ...(action ? { action } : {}),
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: options.inFlight ?? 8 }, lane));
  return sent;
}
