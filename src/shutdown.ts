import type { AppLogger } from './logger.js';

/**
 * One deadline for a whole shutdown (not one per step). Each step gets what is left of it; a step that
 * overruns (a gateway request that never answers, a Redis that does not) is left behind with a warning, and
 * `step` resolves false so the caller can force it. A step that fails is logged and counts as done.
 */
export function shutdownDeadline(timeoutMs: number, logger: AppLogger) {
  const deadline = Date.now() + timeoutMs;
  return async function step(what: string, work: () => Promise<unknown> | undefined): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
    });
    const done = Promise.resolve()
      .then(work)
      .then(
        () => true,
        (error: unknown) => {
          logger.warn(`${what} stop`, error);
          return true;
        },
      );
    try {
      const finished = await Promise.race([done, expired]);
      if (!finished) logger.warn(`${what} did not stop within the shutdown deadline; forcing it`);
      return finished;
    } finally {
      clearTimeout(timer);
    }
  };
}
