import { keysWithPrefix, type Redis } from '../redis.js';

/** Which client a channel is bound to (`use`). One Redis hash per channel, shared by every web process. */
export interface ChannelBinding {
  channel: string;
  clientId: string;
  clientLabel: string;
  boundBy: string;
  boundAt: string;
}

export class BindingStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(channel: string): string {
    return `${this.prefix}:binding:${channel}`;
  }

  async get(channel: string): Promise<ChannelBinding | undefined> {
    const hash = await this.redis.hgetall(this.key(channel));
    if (!hash.clientId) return undefined;
    return {
      channel,
      clientId: hash.clientId,
      clientLabel: hash.clientLabel ?? hash.clientId,
      boundBy: hash.boundBy ?? '',
      boundAt: hash.boundAt ?? '',
    };
  }

  /** Every bound channel (the set of bound channels follows `set` and `remove`). */
  async all(): Promise<ChannelBinding[]> {
    await this.#fillIndex();
    const channels = await this.redis.smembers(this.indexKey());
    const found = await Promise.all(channels.sort().map((channel) => this.get(channel)));
    return found.filter((b): b is ChannelBinding => b !== undefined);
  }

  private indexKey(): string {
    return `${this.prefix}:bindings`;
  }

  #filled = false;

  /** Bindings made before the set existed join it once (whichever process gets there first scans). */
  async #fillIndex(): Promise<void> {
    if (this.#filled) return;
    const claimed = await this.redis.set(`${this.prefix}:bindings-filled`, '1', 'NX');
    if (claimed === 'OK') {
      const head = `${this.prefix}:binding:`;
      const channels = (await keysWithPrefix(this.redis, head)).map((k) => k.slice(head.length));
      if (channels.length) await this.redis.sadd(this.indexKey(), ...channels);
    }
    this.#filled = true;
  }

  /** Unbinds a channel; true when it was bound. */
  async remove(channel: string): Promise<boolean> {
    await this.redis.srem(this.indexKey(), channel);
    return (await this.redis.del(this.key(channel))) > 0;
  }

  async set(binding: ChannelBinding): Promise<void> {
    await this.redis.hset(this.key(binding.channel), {
      clientId: binding.clientId,
      clientLabel: binding.clientLabel,
      boundBy: binding.boundBy,
      boundAt: binding.boundAt,
    });
    await this.redis.sadd(this.indexKey(), binding.channel);
  }
}
