import type { Row } from '../gateway/types.js';
import { findClient, SAMPLE_CLIENTS, type SampleClient } from './clients.js';
import { createRng, hashSeed, type Rng } from './prng.js';
import { DAY_MS, pad } from './rows/helpers.js';
import { FIRST_NAMES, LAST_NAMES, REVIEW_SOURCES, REVIEW_TEXTS } from './rows/words.js';
import type { SandboxStore } from './sample-store.js';

/**
 * `POST /__sandbox/advance`: a day passes upstream. Each client gets new reviews (some of them bad, and one
 * dated days back that only now arrived) and a new observation of every keyword: most stay, some move, one
 * climbs to #1 (into the top 3, a new best), the best-placed other one falls out of the top 10, a keyword
 * stops being tracked and a new one starts. Deterministic for a seed and the number of days advanced.
 */

export interface AdvanceSummary {
  clientId: string;
  day: string;
  reviews: number;
  keywordRows: number;
}

function dayAfter(rows: readonly Row[], field: string, fallbackMs: number): number {
  let newest = '';
  for (const row of rows) {
    const at = row[field];
    if (typeof at === 'string' && at > newest) newest = at;
  }
  const ms = newest ? Date.parse(newest.slice(0, 10)) : fallbackMs;
  return Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS;
}

function newReviews(
  store: SandboxStore,
  client: SampleClient,
  rng: Rng,
  dayMs: number,
  nowMs: number,
): Row[] {
  const ratings = [1, 2, 4, 5, 5, 3];
  const count = client.size === 'large' ? 6 : 3;
  return Array.from({ length: count }, (_, i) => {
    const rating = ratings[i % ratings.length] as number;
    const sentiment = rating <= 2 ? 'negative' : rating === 3 ? 'neutral' : 'positive';
    // The last one is a late arrival: dated three days back, new all the same. None is dated after now (a day
    // advanced past today would otherwise hand a digest reviews from the future); they keep their order.
    const planned = i === count - 1 ? dayMs - 3 * DAY_MS + 3_600_000 : dayMs + (9 + i) * 3_600_000;
    const at = Math.min(planned, nowMs - (count - i) * 60_000);
    return {
      id: store.nextId('rev'),
      author: `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`,
      rating,
      text: rng.pick(REVIEW_TEXTS[sentiment]),
      sentiment,
      source: rng.pick(REVIEW_SOURCES),
      location_id: `loc_${pad(1, 2)}`,
      created_at: new Date(at).toISOString(),
    };
  });
}

const FIRST_WORDS = [
  'open late',
  'same day',
  'weekend',
  '24 hour',
  'emergency',
  'affordable',
  'top rated',
  'local',
];
const SECOND_WORDS = ['', 'near me', 'today', 'prices', 'reviews', 'quote', 'service', 'company'];

/** A keyword a person might search, different for each of 64 days in a row (no date in its text). */
function newKeyword(client: SampleClient, dayMs: number): string {
  const n = Math.floor(dayMs / DAY_MS);
  const first = FIRST_WORDS[n % FIRST_WORDS.length];
  const second = SECOND_WORDS[Math.floor(n / FIRST_WORDS.length) % SECOND_WORDS.length];
  return [client.services[0] ?? 'service', client.city.toLowerCase(), first, second]
    .filter(Boolean)
    .join(' ');
}

function newObservations(store: SandboxStore, client: SampleClient, rng: Rng, day: string): Row[] {
  const latest = new Map<string, Row>();
  for (const row of store.rows(client.id, 'keywords')) {
    if (row.status === 'paused') latest.delete(String(row.keyword));
    else latest.set(String(row.keyword), row);
  }
  const rows = [...latest.values()];
  if (!rows.length) return [];
  const position = (row: Row) => Number(row.position);
  const worst = rows.reduce((a, b) => (position(b) > position(a) ? b : a));
  const falling = rows
    .filter((r) => r !== worst && position(r) <= 10)
    .reduce<Row | undefined>((a, b) => (!a || position(b) < position(a) ? b : a), undefined);
  const pausing = rows.find((r) => r !== worst && r !== falling && position(r) > 10);
  let sequence = store.rows(client.id, 'keywords').length;
  const out: Row[] = [];
  for (const row of rows) {
    let next = position(row);
    if (row === worst) next = 1;
    else if (row === falling) next = rng.int(12, 16);
    else if (rng.chance(client.size === 'large' ? 0.15 : 0.6)) next += rng.int(-6, 6);
    else if (rng.chance(0.01)) next += rng.int(-20, 20);
    next = Math.min(100, Math.max(1, next));
    out.push({
      ...row,
      id: `kw_${pad(++sequence, 7)}`,
      position: next,
      created_at: day,
      tracked_at: day,
      status: row === pausing ? 'paused' : 'active',
    });
  }
  const template = rows[0] as Row;
  out.push({
    ...template,
    id: `kw_${pad(++sequence, 7)}`,
    keyword: newKeyword(client, Date.parse(day)),
    position: rng.int(15, 40),
    search_volume: rng.int(50, 900),
    created_at: day,
    tracked_at: day,
    status: 'active',
  });
  return out;
}

/** Advances one client, or every sample client, by a day. */
export function advanceDay(
  store: SandboxStore,
  seed: number,
  anchorMs: number,
  clientId?: string,
  nowMs = Date.now(),
): AdvanceSummary[] {
  const clients = clientId
    ? [findClient(clientId)].filter((c): c is SampleClient => !!c)
    : [...SAMPLE_CLIENTS];
  return clients.map((client) => {
    const dayMs = dayAfter(store.rows(client.id, 'keywords'), 'tracked_at', anchorMs);
    const day = new Date(dayMs).toISOString().slice(0, 10);
    const rng = createRng(hashSeed(seed, client.id, 'advance', day));
    const reviews = newReviews(store, client, rng, dayMs, nowMs);
    const keywords = newObservations(store, client, rng, day);
    store.append(client.id, 'reviews', ...reviews);
    store.append(client.id, 'keywords', ...keywords);
    return { clientId: client.id, day, reviews: reviews.length, keywordRows: keywords.length };
  });
}
