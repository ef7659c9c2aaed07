import type { Discovery } from '../gateway/index.js';
import type { AppLogger } from '../logger.js';
import { buildCatalogue, type Catalogue } from './catalogue.js';
import { GuardedActionsError, unknownNames } from './guarded.js';

/** Before the first discovery answer, a caller waits this long for one; then the spec's own actions stand in. */
const FIRST_ANSWER_WAIT_MS = 1_500;

/**
 * The action catalogue as the gateway's discovery call last described it (the client caches that call), for
 * the web role and the workers alike: every `get()` starts a refresh and answers with the newest catalogue.
 * Form submissions read it before their ack (3 s): once one answer is known a refresh never holds them up;
 * before that, a slow gateway gets 1.5 s.
 */
export class CatalogueSource {
  #catalogue: Catalogue;
  #source: Discovery | undefined;
  #refreshing: Promise<void> | undefined;

  constructor(
    private readonly discover: () => Promise<Discovery>,
    private readonly guardedActions: readonly string[],
    private readonly logger: AppLogger,
  ) {
    this.#catalogue = buildCatalogue(undefined, { guardedActions });
  }

  readonly get = async (): Promise<Catalogue> => {
    const pending = this.refresh();
    if (this.#source === undefined) {
      await Promise.race([
        pending,
        new Promise((resolve) => setTimeout(resolve, FIRST_ANSWER_WAIT_MS).unref()),
      ]);
    }
    return this.#catalogue;
  };

  /**
   * A refresh waited for at most `ms`; true when it finished. At start: a gateway that drips its discovery
   * answer must not keep the worker (and its health check) from coming up; the catalogue fills in later.
   */
  async refreshWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      this.refresh().then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      }),
    ]);
    clearTimeout(timer);
    return done;
  }

  /** Asks discovery again (one call at a time); a failure keeps the last known actions. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.discover()
      .then((discovery) => {
        if (discovery === this.#source) return;
        this.#catalogue = buildCatalogue(discovery, { guardedActions: this.guardedActions });
        this.#source = discovery;
        // Names the start could not confirm (the gateway was down then): still guarded, but likely a typo.
        const unknown = unknownNames(this.guardedActions, discovery);
        if (unknown.length) this.logger.error(new GuardedActionsError(unknown).message);
      })
      .catch((error: unknown) => this.logger.warn('discovery failed; keeping the last known actions', error))
      .finally(() => {
        this.#refreshing = undefined;
      });
    return this.#refreshing;
  }
}
