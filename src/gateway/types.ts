import { z } from 'zod';
import type { Direction, FilterField, OrderField } from './spec.js';

/**
 * docs/gateway-api.md §4.1 discovery response. Unknown extra fields are kept out; the lists are open-ended.
 */
export const discoverySchema = z.object({
  resources: z.array(z.string()),
  actions: z.array(
    z.object({
      action: z.string(),
      description: z.string().default(''),
      required_fields: z.array(z.string()).default([]),
    }),
  ),
});
export type Discovery = z.infer<typeof discoverySchema>;
export type DiscoveredAction = Discovery['actions'][number];

export type Row = Record<string, unknown>;

/** docs/gateway-api.md §4.2 read response. */
export const pageSchema = z.object({
  resource: z.string(),
  client_id: z.string().optional(),
  data: z.array(z.record(z.string(), z.unknown())),
  pagination: z.object({
    total: z.number(),
    limit: z.number(),
    offset: z.number(),
    has_more: z.boolean(),
  }),
});
export type Page = z.infer<typeof pageSchema>;

export interface ReadParams {
  /** Required for every resource except `clients`. */
  clientId?: string;
  filter?: { field: FilterField | string; value: string };
  order?: OrderField | string;
  direction?: Direction | string;
  limit?: number;
  offset?: number;
  signal?: AbortSignal;
}

/** docs/gateway-api.md §4.3 POST response. */
export const actionResponseSchema = z.object({
  action: z.string().optional(),
  client_id: z.string().optional(),
  status: z.enum(['success', 'error']),
  status_code: z.number().optional(),
  data: z.unknown().optional(),
  error: z.string().optional(),
  message: z.string().optional(),
});

export interface ActionResult {
  action: string;
  clientId: string;
  httpStatus: number;
  statusCode: number | undefined;
  /** The created or updated record. */
  data: Record<string, unknown>;
}

export interface ActOptions {
  signal?: AbortSignal;
  /** Client-side timeout of this POST (default: the client's action timeout). */
  timeoutMs?: number;
}
