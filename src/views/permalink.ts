/**
 * The one rule for a link to a Slack message, on every surface (Home, approval cards, assistant tools): the
 * workspace's own URL (`auth.test`'s `url`) and Slack's archive path, `archives/<channel>/p<ts without its dot>`.
 * Built, not asked for: Home links dozens of messages per tab and is published from Redis alone.
 */
export function messagePermalink(workspaceUrl: string, channel: string, ts: string): string {
  return `${workspaceUrl.replace(/\/*$/, '/')}archives/${channel}/p${ts.replace('.', '')}`;
}
