import type { GatewayClient, ReadParams, Row } from '../gateway/index.js';
import { defaultOrder } from '../gateway/index.js';
import { KeywordHistory } from './keyword-history.js';
import { latestRankings } from './keyword-rankings.js';

/**
 * The rankings read: the newest keyword rows, read once and kept a short while, from which the rankings view
 * (each keyword at its latest observation) and the rankings chart (each keyword's positions over time) are
 * both drawn. A chart asked for after `/gateway keywords`, or the other way round, reads nothing again.
 */

/** Rows read to rank keywords: two observations of 20,000 keywords, in about half a second from the sandbox. */
const RANKINGS_ROWS = 50_000;

type Gateway = Pick<GatewayClient, 'read' | 'collect'>;
type Filter = ReadParams['filter'];

/** The newest rows the gateway gives, read up to `cap`: what a sort the gateway cannot do works on. */
export async function newestRows(
  gateway: Gateway,
  resource: string,
  clientId: string | undefined,
  filter: Filter,
  cap: number,
) {
  const params: ReadParams = { clientId, filter, limit: 1_000 };
  const order = defaultOrder(resource);
  if (order) Object.assign(params, { order, direction: 'desc' });
  return gateway.collect(resource, params, { cap });
}

export interface Rankings {
  ranked: Row[];
  /** Each keyword's positions by date, over the same rows. */
  history: KeywordHistory;
  read: number;
  total: number;
  truncated: boolean;
  /** The ranked rows sorted as asked, by `field:direction`, kept for Next and Previous. */
  sorted: Map<string, Row[]>;
}

/** What the gateway's newest keyword row and row count are now: while they stay the same, so do the rankings. */
export interface RankingsProbe {
  version: string;
  total: number;
  /** The newest row's tracking date (YYYY-MM-DD), '' when there is none. */
  newest: string;
}

export async function probeRankings(
  gateway: Gateway,
  clientId: string,
  filter?: Filter,
): Promise<RankingsProbe> {
  const probe = await gateway.read('keywords', {
    clientId,
    filter,
    order: 'tracked_at',
    direction: 'desc',
    limit: 1,
  });
  const newest = probe.data[0];
  const version = JSON.stringify([probe.pagination.total, newest?.id, newest?.tracked_at]);
  const when = newest?.tracked_at ?? newest?.created_at;
  return {
    version,
    total: probe.pagination.total,
    newest: typeof when === 'string' ? when.slice(0, 10) : '',
  };
}

/**
 * Rankings recently built, per gateway client (so per runtime): Next, Previous, a re-sort and a chart reuse them
 * instead of reading 50,000 rows again, and commands arriving together share one build. An entry is used only
 * while the gateway's newest row and row count are what they were (one 1-row read tells), and for two minutes at
 * most.
 */
const rankingsCache = new WeakMap<object, Map<string, { at: number; built: Promise<Rankings> }>>();
const RANKINGS_TTL_MS = 120_000;
const RANKINGS_KEPT = 8;

/** The client's rankings: built from the newest rows, or the kept build while the probe says nothing changed. */
export async function rankingsOf(
  gateway: Gateway,
  clientId: string,
  filter?: Filter,
  probed?: RankingsProbe,
): Promise<Rankings> {
  const probe = probed ?? (await probeRankings(gateway, clientId, filter));
  const key = JSON.stringify([clientId, filter, probe.version]);
  const cache = rankingsCache.get(gateway) ?? new Map();
  rankingsCache.set(gateway, cache);
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < RANKINGS_TTL_MS) return hit.built;
  const built = newestRows(gateway, 'keywords', clientId, filter, RANKINGS_ROWS).then(
    (collected): Rankings => ({
      ranked: latestRankings(collected.rows, !collected.truncated),
      history: new KeywordHistory(collected.rows),
      read: collected.rows.length,
      total: collected.total,
      truncated: collected.truncated,
      sorted: new Map(),
    }),
  );
  // A failed build is not kept: the next command tries again.
  built.catch(() => cache.delete(key));
  cache.delete(key);
  cache.set(key, { at: Date.now(), built });
  for (const old of cache.keys()) {
    if (cache.size <= RANKINGS_KEPT) break;
    cache.delete(old);
  }
  return built;
}
