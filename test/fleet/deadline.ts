/**
 * Every wait of the fault suite and the fleet has a deadline: a wait that runs past it fails its row with an
 * error that names what it waited for, instead of leaving the suite waiting with nothing to show.
 */
class DeadlineError extends Error {
  readonly code = 'deadline_passed';
}

/** `work`, or a DeadlineError naming `what` once `ms` have passed without it settling. */
export async function within<T>(what: string, ms: number, work: Promise<T> | (() => Promise<T>)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DeadlineError(`gave up after ${(ms / 1_000).toFixed(0)} s waiting for ${what}`)),
      ms,
    );
  });
  try {
    return await Promise.race([typeof work === 'function' ? work() : work, late]);
  } finally {
    clearTimeout(timer);
  }
}
