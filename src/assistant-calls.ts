import { AsyncLocalStorage } from 'node:async_hooks';
import type { Reach } from './access/client-reach.js';
import { GatewayClient, type GatewayClientOptions } from './gateway/client.js';
import { UserError, UserErrorCode } from './requests/user-error.js';
import type { TokenScope } from './store/assistant-token-store.js';

/**
 * The assistant request being served, for the work that runs inside it. The assistant tools (mcp/) are built
 * once per process, so who calls is not captured when they are built but read here; and the gateway reads a
 * call makes go through AssistantReads below, which caps them per person and per process and counts its pages.
 */

/** Who calls, from their token: the person a tool call acts as. */
export interface Caller {
  user: string;
  scope: TokenScope;
  tokenId: string;
}

export interface CallScope {
  caller: Caller;
  /** The caller's reach, read once per request (users.conversations is cached anyway). */
  reach(): Promise<Reach>;
  /** Gateway pages this call has read so far (its budget: MCP_CALL_PAGES). */
  pagesRead: number;
}

const current = new AsyncLocalStorage<CallScope>();

/** Runs `work` as the given call; everything it awaits sees the same scope. */
export function inCall<T>(scope: CallScope, work: () => Promise<T>): Promise<T> {
  return current.run(scope, work);
}

/** The call being served, or undefined outside one (a Slack answer, a job). */
function currentCall(): CallScope | undefined {
  return current.getStore();
}

/** The call being served; tool code runs only inside one. */
export function requireCall(): CallScope {
  const scope = current.getStore();
  if (!scope) throw new Error('an assistant tool ran outside its request');
  return scope;
}

/** A scope for `caller`, its reach read at most once (a failed read is tried again on the next ask). */
export function callScope(caller: Caller, readReach: (user: string) => Promise<Reach>): CallScope {
  let reach: Promise<Reach> | undefined;
  return {
    caller,
    pagesRead: 0,
    reach: () => {
      reach ??= readReach(caller.user);
      reach.catch(() => {
        reach = undefined;
      });
      return reach;
    },
  };
}

/**
 * The assistant tools' gateway reads: their own connection pool (runtime.ts builds a gateway client for them
 * alone), at most `perProcess` reads in flight in this process and `perPerson` for one person, and a budget of
 * `pagesPerCall` pages for one tool call. So an assistant flood holds a few of its own connections and never
 * the ones Slack's answers read through, one person's flood leaves room for the others, and one call cannot
 * walk a whole resource.
 */

export interface ReadLimits {
  perProcess: number;
  perPerson: number;
  pagesPerCall: number;
}

interface Waiter {
  person: string;
  start: () => void;
}

export class AssistantReads {
  #running = 0;
  readonly #byPerson = new Map<string, number>();
  readonly #waiting: Waiter[] = [];

  constructor(readonly limits: ReadLimits) {}

  /** Pages the current call may still read (every page when not inside a call). */
  pagesLeft(): number {
    const call = currentCall();
    return call ? Math.max(0, this.limits.pagesPerCall - call.pagesRead) : Number.POSITIVE_INFINITY;
  }

  /** Runs one gateway read when a slot is free for its person; counts the page against the call's budget. */
  admit = async <T>(read: () => Promise<T>): Promise<T> => {
    const call = currentCall();
    if (!call) return read();
    if (call.pagesRead >= this.limits.pagesPerCall)
      throw new UserError(
        UserErrorCode.OverBudget,
        `This call has read its ${this.limits.pagesPerCall} pages of the gateway (MCP_CALL_PAGES).`,
        { hint: 'Ask for less: a shorter period, a smaller limit, or continue with next_cursor.' },
      );
    call.pagesRead += 1;
    const person = call.caller.user;
    await this.#slot(person);
    try {
      return await read();
    } finally {
      this.#release(person);
    }
  };

  get running(): number {
    return this.#running;
  }

  #free(person: string): boolean {
    return (
      this.#running < this.limits.perProcess && (this.#byPerson.get(person) ?? 0) < this.limits.perPerson
    );
  }

  #take(person: string): void {
    this.#running += 1;
    this.#byPerson.set(person, (this.#byPerson.get(person) ?? 0) + 1);
  }

  #slot(person: string): Promise<void> {
    if (this.#free(person) && !this.#waiting.some((w) => w.person === person)) {
      this.#take(person);
      return Promise.resolve();
    }
    return new Promise((start) => this.#waiting.push({ person, start }));
  }

  #release(person: string): void {
    this.#running -= 1;
    const left = (this.#byPerson.get(person) ?? 1) - 1;
    if (left > 0) this.#byPerson.set(person, left);
    else this.#byPerson.delete(person);
    // The oldest waiter whose person has room starts: one person's queue never blocks another's.
    for (let i = 0; i < this.#waiting.length && this.#running < this.limits.perProcess; i++) {
      const waiter = this.#waiting[i] as Waiter;
      if (!this.#free(waiter.person)) continue;
      this.#waiting.splice(i, 1);
      i -= 1;
      this.#take(waiter.person);
      waiter.start();
    }
  }
}

/** The assistant tools' gateway client: a pool of its own, as many connections as they may read at once. */
export function assistantGatewayOf(
  options: GatewayClientOptions,
  limits: ReadLimits,
): { assistantGateway: GatewayClient; assistantReads: AssistantReads } {
  const assistantReads = new AssistantReads(limits);
  const assistantGateway = new GatewayClient({
    ...options,
    connections: limits.perProcess,
    admit: assistantReads.admit,
  });
  return { assistantGateway, assistantReads };
}
