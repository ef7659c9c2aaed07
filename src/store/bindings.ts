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
    return (await this.redis.del(this.key(channel))) > 0;
  }

  async set(binding: ChannelBinding): Promise<void> {
    await this.redis.hset(this.key(binding.channel), {
      clientId: binding.clientId,
      clientLabel: binding.clientLabel,
      boundBy: binding.boundBy,
      boundAt: binding.boundAt,
    });
  }
}
