/**
 * The `fetch` every Slack Web API client of the bot uses. Node's own fails with "fetch failed" whatever
 * happened, and Slack's client logs only that: an operator whose Slack is unreachable learns nothing. Here a
 * request that never got an answer fails with the host it went to and the error's code (`ENOTFOUND`,
 * `ECONNREFUSED`, `ETIMEDOUT`, a TLS code), which the client's log line and its error then carry.
 */

export class SlackUnreachableError extends Error {
  override readonly name = 'SlackUnreachableError';
  readonly code = 'slack_unreachable';
  constructor(
    /** Host and port, never the path (a response URL's path posts as the bot). */
    readonly host: string,
    /** The network's code: ENOTFOUND, ECONNREFUSED, ETIMEDOUT, a TLS code, or the error's name. */
    readonly reason: string,
    options: { cause: unknown },
  ) {
    super(`fetch failed: ${host} not reached (${reason})`, options);
  }
}

/** `slack.com:443` from a request's URL. */
function hostOf(input: Parameters<typeof fetch>[0]): string {
  try {
    const url = new URL(input instanceof Request ? input.url : String(input));
    return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return 'an address that is not a URL';
  }
}

/** The code of a failed fetch: its cause's (undici puts the socket's error there), else what kind it was. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; name?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  const name = (error as { name?: unknown }).name;
  // The client's own timeout (AbortSignal.timeout) rejects with a TimeoutError and no cause.
  if (name === 'TimeoutError') return 'ETIMEDOUT';
  if (typeof cause?.name === 'string' && cause.name !== 'Error') return cause.name;
  return typeof name === 'string' ? name : 'unknown';
}

export const slackFetch: typeof fetch = async (input, init) => {
  try {
    return await fetch(input, init);
  } catch (error) {
    throw new SlackUnreachableError(hostOf(input), reasonOf(error), { cause: error });
  }
};
