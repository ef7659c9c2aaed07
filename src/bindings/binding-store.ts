import type { Redis } from '../redis/connection.js';

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
    /** Told of every bind and unbind (the Home tabs that list the channel are re-published). */
    private readonly options: { changed?: (channel: string) => Promise<void> } = {},
  ) {}

  async #changed(channel: string): Promise<void> {
    // The binding stands: a Home tab left behind is published anew when opened.
    await this.options.changed?.(channel).catch(() => {});
  }

  /** The Redis hash of a channel's binding (read together with a command's claim: gateway-command.ts). */
  key(channel: string): string {
    return `${this.prefix}:binding:${channel}`;
  }

  /** A binding from its hash as Redis gave it; undefined when the channel is not bound. */
  fromHash(channel: string, hash: Record<string, string>): ChannelBinding | undefined {
    if (!hash.clientId) return undefined;
    return {
      channel,
      clientId: hash.clientId,
      clientLabel: hash.clientLabel ?? hash.clientId,
      boundBy: hash.boundBy ?? '',
      boundAt: hash.boundAt ?? '',
    };
  }

  /** The channels bound to a client, the first bound first (an action reports in the first by default). */
  async channelsOf(clientId: string): Promise<string[]> {
    return (await this.all())
      .filter((b) => b.clientId === clientId)
      .sort((a, b) => a.boundAt.localeCompare(b.boundAt) || a.channel.localeCompare(b.channel))
      .map((b) => b.channel);
  }

  async get(channel: string): Promise<ChannelBinding | undefined> {
    return this.fromHash(channel, await this.redis.hgetall(this.key(channel)));
  }

  /** Every bound channel (the set of bound channels follows `set` and `remove`). */
  async all(): Promise<ChannelBinding[]> {
    const channels = await this.redis.smembers(this.indexKey());
    const found = await Promise.all(channels.sort().map((channel) => this.get(channel)));
    return found.filter((b): b is ChannelBinding => b !== undefined);
  }

  private indexKey(): string {
    return `${this.prefix}:bindings`;
  }

  /** Unbinds a channel; true when it was bound. */
  async remove(channel: string): Promise<boolean> {
    await this.redis.srem(this.indexKey(), channel);
    const removed = (await this.redis.del(this.key(channel))) > 0;
    if (removed) await this.#changed(channel);
    return removed;
  }

  async set(binding: ChannelBinding): Promise<void> {
    await this.redis.hset(this.key(binding.channel), {
      clientId: binding.clientId,
      clientLabel: binding.clientLabel,
      boundBy: binding.boundBy,
      boundAt: binding.boundAt,
    });
    await this.redis.sadd(this.indexKey(), binding.channel);
    await this.#changed(binding.channel);
  }
}
