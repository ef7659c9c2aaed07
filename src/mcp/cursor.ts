import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from '../redis/connection.js';

/**
 * Opaque page cursors of the read tools: signed (HMAC-SHA256) over the tool, the person, the client, the
 * position and the filter, and expiring, so a cursor handed out for one client or person cannot be replayed for
 * another, nor edited. The key lives in Redis, made once by whichever process needs it first, so a cursor from
 * one web process pages on any other. Should Redis lose the key, the next process to need one makes another:
 * every cursor is signed with the key Redis holds at that moment (read each time), and a cursor whose MAC does
 * not match the key a process holds is checked again against Redis's, so the processes agree at once instead
 * of each keeping the key it read first.
 */

export interface CursorScope {
  tool: string;
  user: string;
  clientId: string;
  /** Everything else that shapes the list (filters, order): a cursor only pages the list it came from. */
  filter: unknown;
}

/** How long a cursor pages. */
const CURSOR_TTL_MS = 60 * 60_000;

const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url');

export class CursorSigner {
  #key: Promise<Buffer> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** The key as Redis holds it now (made if there is none), remembered for opening cursors. */
  #current(): Promise<Buffer> {
    this.#key = undefined;
    return this.#secret();
  }

  #secret(): Promise<Buffer> {
    this.#key ??= (async () => {
      const key = `${this.prefix}:mcp:cursor-key`;
      await this.redis.set(key, randomBytes(32).toString('base64'), 'NX');
      const value = await this.redis.get(key);
      if (!value) throw new Error('the cursor key could not be read back from Redis');
      return Buffer.from(value, 'base64');
    })().catch((error: unknown) => {
      this.#key = undefined;
      throw error;
    });
    return this.#key;
  }

  async sign(scope: CursorScope, position: number): Promise<string> {
    const body = Buffer.from(
      JSON.stringify({ p: position, e: Date.now() + CURSOR_TTL_MS, s: digest(scope) }),
    ).toString('base64url');
    const mac = createHmac('sha256', await this.#current())
      .update(body)
      .digest('base64url');
    return `${body}.${mac}`;
  }

  /** The position a cursor stands for, or undefined when it is forged, expired or another list's. */
  async open(scope: CursorScope, cursor: string): Promise<number | undefined> {
    const [body, mac] = cursor.split('.');
    if (!body || !mac) return undefined;
    const given = Buffer.from(mac, 'base64url');
    const matches = (key: Buffer) => {
      const expected = createHmac('sha256', key).update(body).digest();
      return given.length === expected.length && timingSafeEqual(given, expected);
    };
    // A mismatch may be a key this process has not read yet (Redis lost the one it holds): ask once more.
    if (!matches(await this.#secret()) && !matches(await this.#current())) return undefined;
    try {
      const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
        p?: unknown;
        e?: unknown;
        s?: unknown;
      };
      if (typeof parsed.p !== 'number' || !Number.isInteger(parsed.p) || parsed.p < 0) return undefined;
      if (typeof parsed.e !== 'number' || parsed.e < Date.now()) return undefined;
      if (parsed.s !== digest(scope)) return undefined;
      return parsed.p;
    } catch {
      return undefined;
    }
  }
}
