import type {
  AllMiddlewareArgs,
  AnyMiddlewareArgs,
  App,
  BlockButtonAction,
  Middleware,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';

/**
 * Every Slack request the app answers, routed by one Bolt middleware. Bolt runs each registered listener's
 * matching middleware on every request (a command walks past every button, form and event listener before it
 * can ack: an object spread, a copied array and a promise per listener); here a request costs one lookup in a
 * map of its kind, whatever the number of surfaces and ids. The surfaces add their routes (commands/,
 * interactions/, home/, workflows/), app.ts attaches them once. A route is Bolt middleware, as a listener would be: each
 * step calls `next()` to go on, the last is the listener. A request no route takes goes on to Bolt as before
 * (no listener: Bolt's receiver answers it when it times out).
 */

type CommandRoute = Middleware<SlackCommandMiddlewareArgs>;
type ButtonRoute = Middleware<SlackActionMiddlewareArgs<BlockButtonAction>>;
type ViewRoute = Middleware<SlackViewMiddlewareArgs<ViewSubmitAction>>;
type HomeOpenedRoute = Middleware<SlackEventMiddlewareArgs<'app_home_opened'>>;
type MembershipRoute = Middleware<SlackEventMiddlewareArgs<'member_joined_channel' | 'member_left_channel'>>;
type FunctionRoute = Middleware<SlackEventMiddlewareArgs<'function_executed'>>;

/** Slack's events for a person joining or leaving a channel, public or private (scopes channels:read, groups:read). */
export const MEMBERSHIP_EVENTS = ['member_joined_channel', 'member_left_channel'] as const;

type Args = AnyMiddlewareArgs & AllMiddlewareArgs;
type Chain = readonly Middleware<never>[];

interface RoutedBody {
  command?: unknown;
  type?: unknown;
  view?: { callback_id?: unknown };
  actions?: { action_id?: unknown }[];
  event?: { type?: unknown };
}

/** Runs `chain` from step `at`, each step's `next` the step after it (the last one's does nothing). */
function run(chain: Chain, at: number, args: Args): Promise<void> {
  const step = chain[at] as Middleware<AnyMiddlewareArgs> | undefined;
  if (!step) return Promise.resolve();
  const next = at + 1 < chain.length ? () => run(chain, at + 1, args) : async () => {};
  return Promise.resolve(step({ ...args, next }));
}

export class SlackRoutes {
  readonly #commands = new Map<string, Chain>();
  readonly #buttons = new Map<string, Chain>();
  readonly #views = new Map<string, Chain>();
  readonly #events = new Map<string, Chain>();

  /** A slash command (`/gateway`). */
  command(name: string, ...chain: CommandRoute[]): void {
    this.#add(this.#commands, 'command', [name], chain);
  }

  /** Buttons (block_actions), by the action ids their views give them. */
  buttons(actionIds: readonly string[], ...chain: ButtonRoute[]): void {
    this.#add(this.#buttons, 'button', actionIds, chain);
  }

  /** Form submissions (view_submission), by callback id. */
  views(callbackIds: readonly string[], ...chain: ViewRoute[]): void {
    this.#add(this.#views, 'view', callbackIds, chain);
  }

  /** The Home tab opened (Bolt acks every event before any middleware runs). */
  homeOpened(...chain: HomeOpenedRoute[]): void {
    this.#add(this.#events, 'event', ['app_home_opened'], chain);
  }

  /** A person joined or left a channel the bot is in. */
  membershipChanged(...chain: MembershipRoute[]): void {
    this.#add(this.#events, 'event', MEMBERSHIP_EVENTS, chain);
  }

  /** A Workflow Builder step of the app's runs (custom steps): Bolt leaves its ack to the listener. */
  functionExecuted(...chain: FunctionRoute[]): void {
    this.#add(this.#events, 'event', ['function_executed'], chain);
  }

  /** The one middleware that routes every request (app.ts adds it once every surface has added its routes). */
  attach(app: App): void {
    app.use(async (args) => {
      const chain = this.#route(args.body as RoutedBody);
      if (chain) await run(chain, 0, args);
      else await args.next();
    });
  }

  #route(body: RoutedBody): Chain | undefined {
    if (typeof body.command === 'string') return this.#commands.get(body.command);
    // Bolt's payload of a click is its first action, so is ours.
    if (body.type === 'block_actions') return this.#at(this.#buttons, body.actions?.[0]?.action_id);
    if (body.type === 'view_submission') return this.#at(this.#views, body.view?.callback_id);
    if (body.type === 'event_callback') return this.#at(this.#events, body.event?.type);
    return undefined;
  }

  #at(map: Map<string, Chain>, id: unknown): Chain | undefined {
    return typeof id === 'string' ? map.get(id) : undefined;
  }

  #add(map: Map<string, Chain>, kind: string, ids: readonly string[], chain: Chain): void {
    if (chain.length === 0) throw new Error(`a ${kind} route needs a listener`);
    for (const id of ids) {
      // Two surfaces answering one id would each answer every click: refused when the app is built.
      if (map.has(id)) throw new Error(`two routes for the ${kind} "${id}"`);
      map.set(id, chain);
    }
  }
}
