import type { Redis } from './connection.js';

/**
 * Lua scripts, defined once per connection (`defineCommand`) and called by name: ioredis then sends EVALSHA
 * and loads a script only when Redis does not know it yet, instead of the whole text with every EVAL (as
 * BullMQ does with its own). Each script stays beside the code that uses it; this is only how it is called.
 */

export interface RedisScript {
  /** The command name on the connection: unique, and no Redis command's (hence the `gw` start). */
  name: string;
  keys: number;
  lua: string;
}

export function defineScript(name: `gw${string}`, keys: number, lua: string): RedisScript {
  return { name, keys, lua };
}

const defined = new WeakMap<Redis, Set<string>>();

type ScriptCommand = (...args: Array<string | number>) => Promise<unknown>;

export function runScript(
  redis: Redis,
  script: RedisScript,
  keys: readonly string[],
  args: ReadonlyArray<string | number>,
): Promise<unknown> {
  if (keys.length !== script.keys) {
    throw new Error(`${script.name} takes ${script.keys} keys, not ${keys.length}`);
  }
  let names = defined.get(redis);
  if (!names) {
    names = new Set();
    defined.set(redis, names);
  }
  if (!names.has(script.name)) {
    redis.defineCommand(script.name, { numberOfKeys: script.keys, lua: script.lua });
    names.add(script.name);
  }
  const command = (redis as unknown as Record<string, ScriptCommand>)[script.name];
  if (!command) throw new Error(`${script.name} is not defined on this connection`);
  return command.call(redis, ...keys, ...args);
}
