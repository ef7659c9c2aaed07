import type { Token } from '../actions/index.js';
import { MAX_CHART_KEYWORDS } from '../charts/index.js';
import { CHART_USAGE, type ChartKind, drawChart } from '../reads/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import { buildChartComment } from '../views/chart-message.js';
import type { CommandSpec } from './command-context.js';

/**
 * `/gateway chart rankings [keyword …] [from=… to=…]` and `/gateway chart reviews [from=… to=…]`: a chart of the
 * channel's client, posted in the channel with a line of its figures. It reads the gateway, so it waits in the
 * answer lanes of reads (gateway-command.ts) like any other read.
 */

const KINDS: readonly ChartKind[] = ['rankings', 'reviews'];

const bad = (title: string, hint: string) =>
  new UserError(UserErrorCode.BadArguments, title, { usage: CHART_USAGE, hint });

const shown = (t: Token) => (t.kind === 'word' ? t.value : `${t.name}=${t.value}`);

/** The chart's kind, keywords and period from the command's words. */
export function parseChartArgs(args: readonly Token[]): {
  kind: ChartKind;
  keywords: string[];
  from?: string;
  to?: string;
} {
  const [first, ...rest] = args;
  const word = first?.kind === 'word' ? first.value.toLowerCase() : '';
  const kind = KINDS.find((k) => k === word || k.replace(/s$/, '') === word);
  if (!kind) {
    const typed = first ? ` (not \`${shown(first).slice(0, 50)}\`)` : '';
    throw bad(`Which chart? \`rankings\` or \`reviews\`${typed}.`, 'For example: `/gateway chart rankings`');
  }
  const keywords: string[] = [];
  const dates: { from?: string; to?: string } = {};
  for (const token of rest) {
    if (token.kind === 'pair' && (token.name === 'from' || token.name === 'to'))
      dates[token.name] = token.value;
    else if (token.kind === 'pair')
      throw bad(
        `\`${token.name}=\` is not a chart option.`,
        'A chart takes `from=YYYY-MM-DD` and `to=YYYY-MM-DD`.',
      );
    else keywords.push(token.value);
  }
  if (kind === 'reviews' && keywords.length > 0)
    throw bad('A reviews chart takes no keywords.', 'For example: `/gateway chart reviews from=2025-01-01`');
  if (keywords.length > MAX_CHART_KEYWORDS)
    throw bad(
      `A chart draws at most ${MAX_CHART_KEYWORDS} keywords (${keywords.length} were given).`,
      'Quote a keyword with spaces: `/gateway chart rankings "plumber austin" "emergency plumber"`.',
    );
  return { kind, keywords, ...dates };
}

export const chartCommand: CommandSpec = {
  name: 'chart',
  aliases: ['charts'],
  usage: CHART_USAGE,
  summary:
    'A chart in the channel: ranking positions over time (your keywords, or the 10 with the most volume, last 90 days), or reviews per month by rating',
  example: '/gateway chart rankings "plumber austin" "emergency plumber austin"',
  group: 'Read',
  async run(ctx) {
    const request = parseChartArgs(ctx.args);
    const binding = await ctx.binding();
    const chart = await drawChart(ctx.services, ctx.user, binding, request);
    const { meta } = chart;
    await ctx.services.outbound.uploadFile(
      slackReplyTarget(ctx.channel),
      { bytes: chart.png, filename: meta.filename, title: meta.title, altText: meta.altText },
      buildChartComment(meta.facts, ctx.user),
    );
  },
};
