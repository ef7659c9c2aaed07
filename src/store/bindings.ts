import type { Redis } from '../redis.js';

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

  /** Per client, its bound channels scored by when each was bound (the first bound is the default target). */
  private clientKey(clientId: string): string {
    return `${this.prefix}:binding-client:${clientId}`;
  }

  /** The channels bound to a client, the first bound first (bindings made before this index: not listed). */
  async channelsOf(clientId: string): Promise<string[]> {
    const channels = await this.redis.zrange(this.clientKey(clientId), 0, 199);
    const live: string[] = [];
    for (const channel of channels) {
      // A channel rebound since then is no longer the client's.
      if ((await this.get(channel))?.clientId === clientId) live.push(channel);
    }
    return live;
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

  /** Unbinds a channel; true when it was bound. */
  async remove(channel: string): Promise<boolean> {
    const old = await this.get(channel);
    if (old) await this.redis.zrem(this.clientKey(old.clientId), channel);
    return (await this.redis.del(this.key(channel))) > 0;
  }

  async set(binding: ChannelBinding): Promise<void> {
    const old = await this.get(binding.channel);
    if (old && old.clientId !== binding.clientId)
      await this.redis.zrem(this.clientKey(old.clientId), binding.channel);
    await this.redis.zadd(this.clientKey(binding.clientId), 'NX', Date.now(), binding.channel);
    await this.redis.hset(this.key(binding.channel), {
      clientId: binding.clientId,
      clientLabel: binding.clientLabel,
      boundBy: binding.boundBy,
      boundAt: binding.boundAt,
    });
  }
}
