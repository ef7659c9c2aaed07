import type { Row } from '../../gateway/types.js';
import { syntheticKeywordRows } from '../synthetic.js';
import { DAY_MS, type GenContext, pad, slug } from './helpers.js';
import { CITIES, MODIFIERS, NASTY } from './words.js';

/**
 * Tracked keyword rankings: every keyword once per weekly tracking date, oldest week first, so 100,000 rows are
 * 20,000 keywords × 5 weeks. Positions drift week to week, which is what a rankings digest needs.
 */

const WEEKS = 5;
const SMALL_KEYWORDS = 8;
/** Modifiers that read better after the city ("plumber austin near me"). */
const SUFFIX_MODIFIERS = new Set(['near me', 'reviews', 'cost', 'prices', 'quotes', 'companies', 'open now']);

function largeKeyword(
  services: readonly string[],
  k: number,
): { keyword: string; service: string; city: string } {
  const combos = MODIFIERS.length * services.length * CITIES.length;
  const round = Math.floor(k / combos);
  const j = k % combos;
  const modifier = MODIFIERS[j % MODIFIERS.length] ?? '';
  const service = services[Math.floor(j / MODIFIERS.length) % services.length] ?? 'service';
  const city = CITIES[Math.floor(j / (MODIFIERS.length * services.length))] ?? 'austin';
  const core = `${service} ${city}`;
  let keyword = !modifier
    ? core
    : SUFFIX_MODIFIERS.has(modifier)
      ? `${core} ${modifier}`
      : `${modifier} ${core}`;
  if (round > 0) keyword += ` ${round + 1}`;
  return { keyword, service, city };
}

function smallKeyword(ctx: GenContext, k: number): { keyword: string; service: string; city: string } {
  const { services, city, id } = ctx.client;
  const service = services[k % services.length] ?? 'service';
  if (id === 'bright-dental' && k === SMALL_KEYWORDS - 1) return { keyword: NASTY.keyword, service, city };
  const keyword = k < services.length ? `${service} ${city.toLowerCase()}` : `best ${service} near me`;
  return { keyword, service, city };
}

export function keywordRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  if (client.synthetic) return syntheticKeywordRows(client, ctx.anchorMs);
  const total = client.size === 'large' ? ctx.keywordRows : SMALL_KEYWORDS * WEEKS;
  const perWeek = Math.max(1, Math.ceil(total / WEEKS));
  const keywords = Array.from({ length: perWeek }, (_, k) => {
    const base = client.size === 'large' ? largeKeyword(client.services, k) : smallKeyword(ctx, k);
    return {
      keyword: base.keyword,
      url: `${client.website}/${slug(base.service)}${rng.chance(0.3) ? `/${slug(base.city)}` : ''}`,
      volume: Math.round(10 + rng.next() ** 3 * 9_900),
      difficulty: rng.int(1, 100),
      status: rng.chance(0.05) ? 'paused' : 'active',
    };
  });
  // Positions live in a typed array and dates are computed once per week: this loop runs 100,000 times
  // on the first read of the large client, and the server must answer that read quickly.
  const positions = Int8Array.from(keywords, () => rng.int(1, 100));
  const anchorDay = Math.floor(ctx.anchorMs / DAY_MS) * DAY_MS;
  const dates = Array.from({ length: WEEKS }, (_, week) =>
    new Date(anchorDay - (WEEKS - 1 - week) * 7 * DAY_MS).toISOString().slice(0, 10),
  );
  const rows: Row[] = [];
  for (let i = 0; i < total; i++) {
    const week = Math.floor(i / perWeek);
    const k = i % perWeek;
    const kw = keywords[k]!;
    if (week > 0) positions[k] = Math.min(100, Math.max(1, positions[k]! + rng.int(-4, 4)));
    const date = dates[week]!;
    rows.push({
      id: `kw_${pad(i + 1, 7)}`,
      keyword: kw.keyword,
      position: positions[k]!,
      url: kw.url,
      search_volume: kw.volume,
      difficulty: kw.difficulty,
      created_at: date,
      tracked_at: date,
      status: kw.status,
    });
  }
  return rows;
}
