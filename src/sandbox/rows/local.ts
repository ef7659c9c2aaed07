import type { Row } from '../../gateway/types.js';
import { build, type GenContext, pad, personName, sized } from './helpers.js';
import { DIRECTORIES, NASTY, REVIEW_SOURCES, REVIEW_TEXTS } from './words.js';

/** Local presence: reviews, locations, citations, Business Profile, grid searches, competitors. */

type Sentiment = keyof typeof REVIEW_TEXTS;

function ratingFor(sentiment: Sentiment, roll: number): number {
  if (sentiment === 'positive') return roll < 0.7 ? 5 : 4;
  if (sentiment === 'neutral') return 3;
  return roll < 0.6 ? 1 : 2;
}

export function reviewRows(ctx: GenContext): Row[] {
  const { rng } = ctx;
  const locations = sized(ctx, 3, 1);
  return build(ctx, ctx.client.synthetic?.reviews ?? sized(ctx, 3_200, 30), 730, (i, createdAt) => {
    const roll = rng.next();
    const sentiment: Sentiment = roll < 0.68 ? 'positive' : roll < 0.83 ? 'neutral' : 'negative';
    const nasty = ctx.client.size === 'small' && i === 0;
    return {
      id: `rev_${pad(i + 1)}`,
      author: nasty ? NASTY.reviewAuthor : personName(ctx),
      rating: nasty ? 5 : ratingFor(sentiment, rng.next()),
      text: nasty ? NASTY.reviewText : rng.pick(REVIEW_TEXTS[sentiment]),
      sentiment: nasty ? 'positive' : sentiment,
      source: rng.pick(REVIEW_SOURCES),
      location_id: `loc_${pad(rng.int(1, locations), 2)}`,
      created_at: createdAt,
    };
  });
}

export function locationRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 3, 1), 1_000, (i, createdAt) => ({
    id: `loc_${pad(i + 1, 2)}`,
    name: i === 0 ? `${client.name} (main)` : `${client.name} ${['North', 'South', 'East'][i - 1] ?? i}`,
    address: `${rng.int(100, 9_999)} ${rng.pick(['Main St', 'Oak Ave', 'Congress Ave', 'Elm St'])}`,
    city: client.city,
    state: client.state,
    phone: `+1-555-${pad(rng.int(0, 9_999), 4)}`,
    created_at: createdAt,
  }));
}

export function citationRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, DIRECTORIES.length, 540, (i, createdAt) => ({
    id: `cit_${pad(i + 1)}`,
    directory: DIRECTORIES[i],
    listing_url: `https://listings.example/${client.id}/${i + 1}`,
    status: rng.pick(['live', 'live', 'pending', 'needs_update']),
    nap_accurate: rng.chance(0.8),
    created_at: createdAt,
  }));
}

export function gbpProfileRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 3, 1), 1_000, (i, createdAt) => ({
    id: `gbp_${pad(i + 1, 2)}`,
    business_name: client.name,
    location_id: `loc_${pad(i + 1, 2)}`,
    status: 'verified',
    rating: Math.round((3.8 + rng.next()) * 10) / 10,
    review_count: sized(ctx, 3_200, 30),
    created_at: createdAt,
  }));
}

export function gbpPostRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 60, 5), 365, (i, createdAt) => {
    const topic = rng.pick(client.services);
    return {
      id: `gbppost_${pad(i + 1)}`,
      topic,
      summary: `Need ${topic}? ${client.name} is ready to help.`,
      cta: rng.pick(['CALL', 'BOOK', 'LEARN_MORE']),
      status: rng.pick(['draft', 'published', 'published']),
      created_at: createdAt,
    };
  });
}

export function gridSearchRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 50, 4), 180, (i, createdAt) => ({
    id: `grid_${pad(i + 1)}`,
    keyword: `${rng.pick(client.services)} near me`,
    lat: client.lat,
    lng: client.lng,
    radius: rng.pick([1, 3, 5]),
    grid_size: 7,
    average_rank: Math.round((1 + rng.next() * 15) * 10) / 10,
    tracked_at: createdAt,
    created_at: createdAt,
  }));
}

export function competitorRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 25, 5), 180, (i, createdAt) => ({
    id: `comp_${pad(i + 1)}`,
    name: `${rng.pick(['Ace', 'Best', 'Pro', 'City', 'Rapid'])} ${client.services[0] ?? 'service'} co ${i + 1}`,
    domain: `competitor${i + 1}.example`,
    appearances: rng.int(1, 400),
    average_rank: Math.round((1 + rng.next() * 20) * 10) / 10,
    created_at: createdAt,
  }));
}
