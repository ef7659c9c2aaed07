import type { Row } from '../../gateway/types.js';
import { build, type GenContext, pad, sized } from './helpers.js';
import { INTEGRATIONS, LLM_ENGINES } from './words.js';

/** Calls and their scoring, answer-engine reports, AI summaries and knowledge, integrations. */

const GRADES = ['A', 'B', 'C', 'D'] as const;
const CALL_SOURCES = ['google_ads', 'organic', 'gbp', 'direct', 'referral'] as const;

function callRows(ctx: GenContext, prefix: string): Row[] {
  const { rng } = ctx;
  return build(ctx, sized(ctx, 300, 10), 180, (i, createdAt) => ({
    id: `${prefix}_${pad(i + 1)}`,
    caller: `+1-555-${pad(rng.int(0, 9_999), 4)}`,
    duration_seconds: rng.int(5, 900),
    source: rng.pick(CALL_SOURCES),
    status: rng.pick(['answered', 'answered', 'missed', 'voicemail']),
    created_at: createdAt,
  }));
}

export const callTrackingRows = (ctx: GenContext): Row[] => callRows(ctx, 'call');
export const callProviderRows = (ctx: GenContext): Row[] => callRows(ctx, 'pcall');

export function callScoreRows(ctx: GenContext): Row[] {
  const { rng } = ctx;
  return build(ctx, sized(ctx, 200, 8), 180, (i, createdAt) => ({
    id: `score_${pad(i + 1)}`,
    call_id: `call_${pad(rng.int(1, sized(ctx, 300, 10)))}`,
    lead_grade: rng.pick(GRADES),
    quality_grade: rng.pick(GRADES),
    score: rng.int(10, 100),
    created_at: createdAt,
  }));
}

export function callTranscriptionRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 200, 8), 180, (i, createdAt) => ({
    id: `tx_${pad(i + 1)}`,
    call_id: `call_${pad(rng.int(1, sized(ctx, 300, 10)))}`,
    transcript: `Caller: Hi, I need ${rng.pick(client.services)}. Agent: Sure, when works for you?`,
    lead_grade: rng.pick(GRADES),
    quality_grade: rng.pick(GRADES),
    created_at: createdAt,
  }));
}

export function llmReportRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 40, 4), 180, (i, createdAt) => ({
    id: `llm_${pad(i + 1)}`,
    prompt: `Who is the best ${rng.pick(client.services)} in ${client.city}?`,
    brand_name: client.name,
    engine: rng.pick(LLM_ENGINES),
    visibility_score: rng.int(0, 100),
    mentions: rng.int(0, 12),
    scored_at: createdAt,
    created_at: createdAt,
  }));
}

export function aiSummaryRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 30, 4), 180, (i, createdAt) => ({
    id: `aisum_${pad(i + 1)}`,
    source_id: `src_${pad(rng.int(1, 10), 3)}`,
    summary: `${client.name}: ${rng.pick(['rankings steady', 'reviews up', 'traffic down slightly', 'new links earned'])}.`,
    created_at: createdAt,
  }));
}

export function aiTrainingRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 30, 4), 365, (i, createdAt) => ({
    id: `kb_${pad(i + 1)}`,
    source_id: `src_${pad(rng.int(1, 10), 3)}`,
    title: `About our ${rng.pick(client.services)} service`,
    content: `${client.name} serves ${client.city}, ${client.state}.`,
    created_at: createdAt,
  }));
}

export function integrationRows(ctx: GenContext): Row[] {
  const { rng } = ctx;
  return build(ctx, INTEGRATIONS.length, 720, (i, createdAt) => ({
    id: `int_${pad(i + 1, 2)}`,
    name: INTEGRATIONS[i],
    status: rng.pick(['connected', 'connected', 'connected', 'disconnected', 'error']),
    connected_at: createdAt,
    created_at: createdAt,
  }));
}
