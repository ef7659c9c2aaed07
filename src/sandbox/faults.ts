import { createRng, hashSeed, type Rng } from './prng.js';
import { type FailNextMatch, SANDBOX_FAULTS, type SandboxFault, type SandboxKnobs } from './sandbox-types.js';

/**
 * Which fault, if any, a request gets: queued faults first (deterministic tests), else the knobs' rates rolled
 * on a seeded stream so a run with the same seed fails the same requests.
 */

export const DEFAULT_KNOBS: SandboxKnobs = {
  latencyMs: 0,
  errorRate: 0,
  timeoutRate: 0,
  dropRate: 0,
  statusErrorRate: 0,
  dripRate: 0,
  dripMs: 2_000,
  endlessRate: 0,
  hostileRate: 0,
  echoKeyRate: 0,
};

/** Knobs that are times, not fractions. */
const TIME_KNOBS = new Set(['latencyMs', 'dripMs']);

export class SandboxInputError extends Error {
  override name = 'SandboxInputError';
  readonly code = 'sandbox_bad_input';
}

/** Checks a partial knobs object (from code or the introspection endpoint). */
export function parseKnobs(input: unknown): Partial<SandboxKnobs> {
  if (typeof input !== 'object' || input === null) throw new SandboxInputError('knobs must be a JSON object');
  const out: Partial<SandboxKnobs> = {};
  for (const [name, value] of Object.entries(input)) {
    if (!(name in DEFAULT_KNOBS)) {
      throw new SandboxInputError(`Unknown knob "${name}". Knobs: ${Object.keys(DEFAULT_KNOBS).join(', ')}`);
    }
    const isRate = !TIME_KNOBS.has(name);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (isRate && value > 1)) {
      throw new SandboxInputError(
        isRate ? `${name} must be a fraction from 0 to 1` : `${name} must be a number of milliseconds`,
      );
    }
    out[name as keyof SandboxKnobs] = value;
  }
  return out;
}

interface QueuedFault {
  fault: SandboxFault;
  match: FailNextMatch;
  remaining: number;
}

export interface FaultRequest {
  method: string;
  action?: string;
  resource?: string;
}

/** How a GET misbehaves beyond the queued faults: each rolled on its own stream (see `hostile`). */
export interface HostileRead {
  drip: boolean;
  endless: boolean;
  hostile: boolean;
  echoKey: boolean;
}

export class FaultPlan {
  private knobsNow: SandboxKnobs;
  private queue: QueuedFault[] = [];
  private rng: Rng;
  private hostileRng: Rng;

  constructor(
    private readonly seed: number,
    private readonly baseKnobs: SandboxKnobs,
  ) {
    this.knobsNow = { ...baseKnobs };
    this.rng = createRng(hashSeed(seed, 'faults'));
    this.hostileRng = createRng(hashSeed(seed, 'hostile'));
  }

  /**
   * A GET's misbehaviour by the hostile knobs. Its own dice stream, so turning these knobs on leaves the
   * sequence of the other faults as it was.
   */
  hostile(): HostileRead {
    const k = this.knobsNow;
    const roll = (rate: number) => rate > 0 && this.hostileRng.next() < rate;
    return {
      drip: roll(k.dripRate),
      endless: roll(k.endlessRate),
      hostile: roll(k.hostileRate),
      echoKey: roll(k.echoKeyRate),
    };
  }

  get knobs(): SandboxKnobs {
    return { ...this.knobsNow };
  }

  setKnobs(knobs: Partial<SandboxKnobs>): void {
    this.knobsNow = { ...this.knobsNow, ...parseKnobs(knobs) };
  }

  failNext(fault: SandboxFault, match: FailNextMatch = {}): void {
    if (!SANDBOX_FAULTS.includes(fault)) {
      throw new SandboxInputError(`Unknown fault "${String(fault)}". Faults: ${SANDBOX_FAULTS.join(', ')}`);
    }
    const count = match.count ?? 1;
    if (!Number.isInteger(count) || count < 1)
      throw new SandboxInputError('count must be a whole number from 1');
    this.queue.push({ fault, match, remaining: count });
  }

  decide(request: FaultRequest): SandboxFault | undefined {
    const queued = this.queue.find((q) => matches(q.match, request));
    if (queued) {
      queued.remaining -= 1;
      if (queued.remaining === 0) this.queue.splice(this.queue.indexOf(queued), 1);
      return queued.fault;
    }
    // One roll per request, so the sequence of faults does not depend on the rates' values being zero.
    const roll = this.rng.next();
    const k = this.knobsNow;
    if (roll < k.errorRate) return '500';
    if (request.method !== 'POST') return undefined;
    let edge = k.errorRate + k.timeoutRate;
    if (roll < edge) return 'timeout';
    edge += k.dropRate;
    if (roll < edge) return 'drop_after_action';
    edge += k.statusErrorRate;
    if (roll < edge) return 'status_error';
    return undefined;
  }

  reset(): void {
    this.knobsNow = { ...this.baseKnobs };
    this.queue = [];
    this.rng = createRng(hashSeed(this.seed, 'faults'));
    this.hostileRng = createRng(hashSeed(this.seed, 'hostile'));
  }
}

function matches(match: FailNextMatch, request: FaultRequest): boolean {
  if (match.method && match.method !== request.method) return false;
  if (match.action && match.action !== request.action) return false;
  if (match.resource && match.resource !== request.resource) return false;
  return true;
}
