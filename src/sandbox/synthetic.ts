import type { Row } from '../gateway/types.js';
import type { SampleClient, Synthetic } from './clients.js';
import { hashSeed } from './prng.js';
import { DAY_MS, pad } from './rows/helpers.js';

/**
 * Synthetic clients, for fleets and size curves (bench/fleet.ts): any id `synth-<keywords>x<days>-<n>` is a
 * client with that many keywords, each observed once a day for that many days (`synth-5000x200-1`: a million
 * keyword rows). Their keyword rows are computed from the row's index when a page is read, never stored, so a
 * million-row client costs the sandbox what one page costs. Positions wander around a keyword's own level, so
 * day-to-day moves, crossings and new bests occur. Other resources are the small sample's, with 50 to 200
 * reviews. `advance` does not reach the keyword rows of a synthetic client served this way.
 */

/** Above this, a synthetic client's keyword rows are served in date order only (they are not materialised). */
const MATERIALISE_MAX = 250_000;

function syntheticRowCount(client: SampleClient): number {
  return client.synthetic ? client.synthetic.keywords * client.synthetic.days : 0;
}

const SERVICES = ['roofer', 'roof repair', 'gutter cleaning', 'siding installation', 'skylight repair'];
const PLACES = ['denver', 'aurora', 'boulder', 'lakewood', 'golden', 'arvada', 'littleton'];

/** Row `i` of the client's keyword rows, oldest day first (one row per keyword a day). */
function syntheticKeywordRow(client: SampleClient, anchorMs: number, i: number): Row {
  const { keywords, days } = client.synthetic as Synthetic;
  const day = Math.floor(i / keywords);
  const k = i % keywords;
  const h = hashSeed(client.id, k);
  const level = 1 + (h % 60);
  const period = 5 + ((h >>> 8) % 20);
  const wander = Math.round(8 * Math.sin(day / period + (h % 7)));
  const jitter = (hashSeed(h, day) % 3) - 1;
  const date = new Date(Math.floor(anchorMs / DAY_MS) * DAY_MS - (days - 1 - day) * DAY_MS)
    .toISOString()
    .slice(0, 10);
  const service = SERVICES[k % SERVICES.length] as string;
  const place = PLACES[Math.floor(k / SERVICES.length) % PLACES.length] as string;
  const round = Math.floor(k / (SERVICES.length * PLACES.length));
  return {
    id: `kw_${pad(i + 1, 8)}`,
    keyword: `${service} ${place}${round ? ` ${round + 1}` : ''}`,
    position: Math.min(100, Math.max(1, level + wander + jitter)),
    url: `${client.website}/${service.replace(/ /g, '-')}`,
    search_volume: 10 + ((h >>> 4) % 5_000),
    difficulty: 1 + ((h >>> 12) % 100),
    created_at: date,
    tracked_at: date,
    status: h % 20 === 0 ? 'paused' : 'active',
  };
}

/** Every keyword row, for the orders and filters a page cannot compute (a client of at most 250,000 rows). */
export function syntheticKeywordRows(client: SampleClient, anchorMs: number): Row[] {
  const total = syntheticRowCount(client);
  if (total > MATERIALISE_MAX) return [];
  return Array.from({ length: total }, (_, i) => syntheticKeywordRow(client, anchorMs, i));
}

/**
 * A page of keyword rows computed from their indexes, when the read is in date order (or none) and unfiltered;
 * undefined otherwise (the caller selects from the materialised rows).
 */
export function syntheticKeywordPage(
  client: SampleClient,
  anchorMs: number,
  selection: { order?: string; direction: 'asc' | 'desc'; filter?: unknown },
  offset: number,
  limit: number,
): { rows: Row[]; total: number } | undefined {
  const total = syntheticRowCount(client);
  const dated = !selection.order || selection.order === 'tracked_at' || selection.order === 'created_at';
  if (!dated || selection.filter) return undefined;
  // Natural order is the date order; desc reads it from the end (ties keep no particular order, as a database's).
  const desc = selection.order !== undefined && selection.direction === 'desc';
  const rows: Row[] = [];
  for (let j = offset; j < Math.min(total, offset + limit); j++) {
    rows.push(syntheticKeywordRow(client, anchorMs, desc ? total - 1 - j : j));
  }
  return { rows, total };
}
