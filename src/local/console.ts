import { type ButtonTarget, ConsoleFeed, messageKey } from './console-feed.js';
import type { SaveImage } from './console-files.js';
import { escapeMentions, type IdleOptions, type LineSource, waitForIdle } from './console-input.js';
import { toolArguments } from './console-mcp.js';
import { answerFor, describeModal, modalFields, parseFill } from './console-modal.js';
import { fillModalInteractively } from './console-prompts.js';
import { type RenderNames, renderBlocks } from './console-render.js';
import { ConsoleWorkflows } from './console-workflow.js';
import type { SlackDriver } from './driver.js';
import type { FakeSlack, FakeView } from './fake-slack/index.js';
import { DEFAULT_USERS } from './fake-slack/state.js';
import type { InputValues } from './view-state.js';

/**
 * The demo console: a person (or a script) types `/gateway …` lines as a Slack user in a channel, sees what
 * the channel shows, presses numbered buttons and answers modals. It drives the bot only through the local
 * Slack stand-in (signed requests), exactly as Slack would.
 */

const CONSOLE_HELP = [
  'Console commands:',
  '  /gateway <command>     send a slash command (try /gateway help)',
  '  press N  (or just N)   press button [N] of the last message shown with buttons',
  '  press <label>          press the button with that label, or the start of one (press Next, press App)',
  '  fill name=value …      answer the open modal’s fields (quotes for spaces, \\" for a quote; a choice',
  '                         by its number, value or label: fill category_id=2), then: submit',
  '  submit | cancel        submit or close the open modal',
  '  as <user>              switch user (who is who: below); the channel message buttons stay pressable',
  '                         (an approver presses Approve)',
  '  channel #name          switch channel (bind it to a client with /gateway use <client_id>)',
  '  wait                   wait until every job is done, queued ones included',
  '  wait 60s                let that much time pass (s or m: wait 90s, wait 2m)',
  '  advance                a day passes at the sandbox gateway: new reviews, new keyword positions',
  '  home                   open the bot’s Home tab as the current user; its buttons are pressable, and it is',
  '                         shown again when it changes (until the next /gateway line)',
  '  mcp <tool> [name=value …]  call an assistant tool as the current user, with their token (alice has one;',
  '                         /gateway mcp token mints yours and the console uses it; mcp tools lists them):',
  '                         mcp list_keywords client_id=acme-plumbing limit=5',
  '                         mcp get_job with no job_id asks about the job the last mcp call returned',
  '  workflow <step> [name=value …]  run a Workflow Builder step as the current user in this channel and print',
  '                         its outputs or error when it ends; @step.output is an earlier step’s output:',
  '                         workflow generate_blog keyword="drain cleaning" · workflow deploy_blog post_id=@generate_blog.post_id',
  '  help | quit',
];

/** What a person may do, for `help` and `as`: the demo's roles, or what Slack says of the user. */
function roleOf(user: (typeof DEFAULT_USERS)[number], roles: Readonly<Record<string, string>>): string {
  return (
    roles[user.id] ??
    (user.is_admin
      ? 'an admin'
      : user.is_restricted
        ? 'a guest'
        : user.team_id
          ? 'from another workspace'
          : 'a member')
  );
}

export interface ConsoleOptions {
  slack: FakeSlack;
  driver: SlackDriver;
  /** A person at a terminal: modals are asked field by field, and output arrives as it happens. */
  interactive: boolean;
  /**
   * True while jobs are running or about to. `queued`: also while action jobs only wait for the rate window
   * (a script goes on past those after each line; `wait` sits them out).
   */
  busy: (options?: { queued?: boolean }) => Promise<boolean>;
  /** `advance`: a day of new data at the sandbox gateway; answers what it added, as lines to print. */
  advance?: () => string[];
  /**
   * `mcp <tool> …`: calls an assistant tool as the current person (the demo's MCP client), answering lines to
   * print; `useToken`: a token the person just minted with `/gateway mcp token`, for their next calls.
   */
  mcp?: {
    call(user: string, tool: string, args: Record<string, unknown>): Promise<string[]>;
    useToken(user: string, token: string): void;
  };
  /** Saves an image the bot posts (the console prints its path); unset, only its title shows. */
  saveImage?: SaveImage;
  /** How long to wait after each line; scripts wait for jobs too. */
  idle?: Partial<IdleOptions>;
  user?: string;
  channel?: string;
  /** Each person's role in this run, by user id (`help` lists them; `as` says it). */
  roles?: Readonly<Record<string, string>>;
}

export interface ConsoleOutcome {
  /** The bot stopped answering or answered with a server error. */
  crashed: boolean;
  /** Lines the console could not carry out (unknown command, no such button, no open modal). */
  problems: number;
}

class ConsoleProblem extends Error {}
const problem = (error: unknown): never => {
  throw new ConsoleProblem(error instanceof Error ? error.message : String(error));
};

/** A numbered button: on a channel message, or on the Home tab. */
type Pressable = Omit<ButtonTarget, 'message'> & { message: ButtonTarget['message'] | FakeView };

/** `wait` with no time gives up after this long, saying so. */
const WAIT_ALL_MAX_MS = 5 * 60_000;

/** `60s`, `60 s`, `2m`, `500ms`; a bare number is refused (seconds or minutes would be a guess). At most 10 m. */
function parseWaitTime(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m)$/i.exec(text);
  if (!match) return undefined;
  const unit = (match[2] ?? '').toLowerCase();
  const ms = Number(match[1]) * (unit === 'm' ? 60_000 : unit === 's' ? 1_000 : 1);
  return ms > 0 && ms <= 10 * 60_000 ? ms : undefined;
}

export class DemoConsole {
  user: string;
  channel: string;
  private readonly feed: ConsoleFeed;
  private readonly workflows: ConsoleWorkflows;
  private readonly channelNames = new Map<string, string>([['CSEO', 'seo']]);
  private readonly modalValues = new Map<string, InputValues>();
  private buttons: Pressable[] = [];
  /** Slack's call count before the last request that the bot answers visibly (a command, a click). */
  private answerAfter: number | undefined;
  private out: LineSource | undefined;
  /** The Home tab is on screen: shown again whenever the bot publishes it anew. */
  private homeOpen = false;
  private homeShown = '';
  private outcome: ConsoleOutcome = { crashed: false, problems: 0 };
  /** A `/gateway mcp token` line ran: its answer holds a token for the console's assistant. */
  private tokenWanted = false;

  constructor(private readonly opts: ConsoleOptions) {
    this.user = opts.user ?? 'UADMIN';
    opts.slack.simulate.signInAs(this.user);
    this.channel = opts.channel ?? 'CSEO';
    this.feed = new ConsoleFeed(opts.slack, this.names, opts.saveImage);
    this.workflows = new ConsoleWorkflows(opts.slack, opts.driver);
    this.feed.watch(this.channel);
  }

  readonly names: RenderNames = {
    user: (id) => this.opts.slack.userName(id),
    channel: (id) => this.channelNames.get(id) ?? this.opts.slack.channelName(id),
  };

  prompt(): string {
    return `${this.names.user(this.user)} in #${this.names.channel(this.channel)}> `;
  }

  /** Prints what changed in Slack since the last look; the demo also calls it on a timer. */
  flush(): void {
    const batch = this.feed.collect(this.user);
    const lines = [...batch.lines];
    // A message shown again (decided, replaced, a new page) has only the buttons it shows now.
    if (batch.buttons.length) this.buttons = batch.buttons;
    else if (batch.touched.length)
      this.buttons = this.buttons.filter(
        (b) => !('ts' in b.message) || !batch.touched.includes(messageKey(b.message)),
      );
    if (batch.view && !this.opts.interactive) lines.push(...this.modalLines(batch.view));
    lines.push(...this.homeLines(), ...this.workflows.ended());
    this.out?.print(lines);
  }

  /** The Home tab as text when it changed since it was last shown; its buttons become the pressable ones. */
  private homeLines(): string[] {
    const home = this.homeOpen ? this.opts.slack.home(this.user) : undefined;
    if (!home || home.hash === this.homeShown) return [];
    this.homeShown = home.hash;
    const body = renderBlocks(home.view.blocks ?? [], { names: this.names });
    this.buttons = body.buttons.map((b) => ({
      number: b.number,
      text: b.text,
      message: home,
      query: b.value === undefined ? { actionId: b.actionId } : { actionId: b.actionId, value: b.value },
    }));
    const lines = body.lines.filter((l) => l.trim() !== '');
    return [`── Home of ${this.names.user(this.user)} ──`, ...lines.map((l) => `  ${l}`)];
  }

  /** `home`: the current user opens the Home tab; it is shown once the bot has published it. */
  private async openHome(): Promise<void> {
    const before = this.opts.slack.home(this.user)?.hash;
    this.homeOpen = true;
    this.homeShown = '';
    await this.request(() => this.opts.driver.homeOpened({ user: this.user }));
    await this.opts.slack
      .waitFor(() => this.opts.slack.home(this.user)?.hash !== before, {
        what: 'the Home tab',
        timeoutMs: 5_000,
      })
      .catch(() => {
        if (!this.opts.slack.home(this.user))
          throw new ConsoleProblem('the bot did not publish the Home tab');
      });
  }

  /** Runs lines until the source ends or `quit`. */
  async run(source: LineSource): Promise<ConsoleOutcome> {
    this.out = source;
    for (;;) {
      const line = await source.next(this.prompt());
      if (line === undefined) break;
      if ((await this.handle(line)) === 'quit') break;
      if (this.outcome.crashed && !this.opts.interactive) break;
    }
    this.flush();
    return this.outcome;
  }

  /** One line. Problems are printed and counted; a script goes on with its next line. */
  async handle(raw: string): Promise<'quit' | undefined> {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return undefined;
    try {
      const result = await this.dispatch(line);
      if (result === 'quit') return 'quit';
      await this.settle();
      if (this.opts.interactive && this.out && this.openModal()) {
        const ended = await fillModalInteractively(this, this.out);
        if (ended === 'eof') return 'quit';
      }
    } catch (error) {
      this.report(error);
    }
    return undefined;
  }

  private async dispatch(line: string): Promise<'quit' | undefined> {
    const [word = '', ...rest] = line.split(/\s+/);
    const arg = rest.join(' ');
    const lower = word.toLowerCase();
    if (lower === '/gateway' || lower.startsWith('/gateway')) {
      this.homeOpen = false;
      const text = escapeMentions(line.replace(/^\/gateway\s*/i, ''), DEFAULT_USERS);
      this.answerAfter = this.opts.slack.calls.length;
      await this.request(() => this.opts.driver.command(text, { user: this.user, channel: this.channel }));
      if (/^mcp\s+token\b/i.test(text)) this.tokenWanted = true;
    } else if (lower === 'press' || /^\d+$/.test(word)) {
      await this.press(lower === 'press' ? arg : word);
    } else if (lower === 'fill') {
      this.fill(parseFill(line.slice(word.length)));
    } else if (lower === 'submit') {
      await this.submit();
    } else if (lower === 'cancel' || lower === 'close') {
      await this.closeModal();
    } else if (lower === 'as') {
      this.switchUser(arg);
    } else if (lower === 'channel') {
      this.switchChannel(arg);
    } else if (lower === 'advance') {
      if (!this.opts.advance) throw new ConsoleProblem('advance needs the built-in sandbox gateway');
      this.out?.print(this.opts.advance());
    } else if (lower === 'home') {
      await this.openHome();
    } else if (lower === 'wait') {
      await this.wait(arg);
    } else if (lower === 'mcp') {
      await this.callTool(rest);
    } else if (lower === 'workflow') {
      this.out?.print(await this.workflows.run(rest, this).catch(problem));
    } else if (lower === 'help' || lower === '?') {
      const people = DEFAULT_USERS.map(
        (u) => `  ${u.name.padEnd(6)} ${u.id.padEnd(10)} ${roleOf(u, this.opts.roles ?? {})}`,
      );
      this.out?.print([...CONSOLE_HELP, 'Who is who (as <name>):', ...people]);
    } else if (lower === 'quit' || lower === 'exit') {
      return 'quit';
    } else {
      throw new ConsoleProblem(
        `“${word}” is not a console command. Slash commands start with /gateway; type help.`,
      );
    }
    return undefined;
  }

  /**
   * `mcp <tool> [name=value …]`: an assistant tool, called as the current person with their token. Nothing
   * in Slack answers a tool call (a deploy's approval card is posted before the tool answers), so the console
   * does not wait for a Slack answer after it.
   */
  private async callTool(words: string[]): Promise<void> {
    const [tool = '', ...rest] = words;
    if (!this.opts.mcp || !tool) throw new ConsoleProblem('mcp <tool> [name=value …]; mcp tools lists them');
    if (['token', 'tokens', 'revoke'].includes(tool.toLowerCase()))
      throw new ConsoleProblem(
        `mcp ${tool} is a slash command: /gateway mcp ${[tool, ...rest].join(' ')} (mcp <tool> calls an assistant tool; mcp tools lists them)`,
      );
    let values: Record<string, string>;
    try {
      values = parseFill(rest.join(' '), `mcp ${tool}`) as Record<string, string>;
    } catch (error) {
      throw new ConsoleProblem(error instanceof Error ? error.message : String(error));
    }
    try {
      this.out?.print(await this.opts.mcp.call(this.user, tool, toolArguments(values)));
    } catch (error) {
      throw new ConsoleProblem(error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * After `/gateway mcp token`: the secret shown to the person, copied into the console's assistant as a
   * person pastes it into theirs, so their `mcp` lines act as them.
   */
  private adoptMintedToken(): void {
    this.tokenWanted = false;
    const minted = this.opts.slack
      .ephemerals(this.channel, this.user)
      .map((m) => /\*Token:\* `([^`\s]+)`/.exec(JSON.stringify(m.blocks ?? []))?.[1])
      .filter((t) => t !== undefined)
      .at(-1);
    if (!minted || !this.opts.mcp) return;
    this.opts.mcp.useToken(this.user, minted);
    this.out?.print([`(the console's mcp lines now use ${this.names.user(this.user)}'s new token)`]);
  }

  /** Waits for the bot to go quiet and prints what it did. Scripts also wait for queued jobs to finish. */
  async settle(forJobs = !this.opts.interactive): Promise<void> {
    const idle = this.opts.idle ?? {};
    const answerAfter = this.answerAfter;
    this.answerAfter = undefined;
    await waitForIdle(this.opts.slack, {
      quietMs: idle.quietMs ?? (forJobs ? 500 : 250),
      maxMs: idle.maxMs ?? (forJobs ? 20_000 : 5_000),
      ...(forJobs ? { busy: idle.busy ?? this.opts.busy } : {}),
      ...(answerAfter === undefined ? {} : { answerAfter }),
    });
    this.flush();
    if (this.tokenWanted) this.adoptMintedToken();
  }

  /** `wait`: until every job is done, queued ones included; `wait 60s`: that long. */
  private async wait(arg: string): Promise<void> {
    const spec = arg.trim();
    if (!spec) {
      const started = Date.now();
      const done = await waitForIdle(this.opts.slack, {
        quietMs: 500,
        maxMs: WAIT_ALL_MAX_MS,
        busy: () => this.opts.busy({ queued: true }),
      });
      this.flush();
      if (!done) throw new ConsoleProblem(`jobs still pending after ${WAIT_ALL_MAX_MS / 60_000} minutes`);
      this.out?.print([`(every job is done; waited ${Math.round((Date.now() - started) / 1_000)} s)`]);
      return;
    }
    const ms = parseWaitTime(spec);
    if (ms === undefined)
      throw new ConsoleProblem(
        `wait takes nothing (until every job is done) or a time up to 10m such as 60s or 2m, not “${spec}”`,
      );
    await new Promise((r) => setTimeout(r, ms));
    this.flush();
    this.out?.print([`(waited ${spec})`]);
  }

  private async press(which: string): Promise<void> {
    const wanted = which.trim().replace(/^\[|\]$/g, '');
    if (!wanted) throw new ConsoleProblem('press which button? e.g. press 1');
    const lower = wanted.toLowerCase();
    const prefixed = this.buttons.filter((b) => b.text.toLowerCase().startsWith(lower));
    if (!/^\d+$/.test(wanted) && prefixed.length > 1 && !prefixed.some((b) => b.text.toLowerCase() === lower))
      throw new ConsoleProblem(
        `“${wanted}” starts more than one button: ${prefixed.map((b) => `[${b.number}] ${b.text}`).join('  ')}`,
      );
    const target = /^\d+$/.test(wanted)
      ? this.buttons.find((b) => b.number === Number(wanted))
      : (this.buttons.find((b) => b.text.toLowerCase() === lower) ?? prefixed[0]);
    if (!target) {
      const shown = this.buttons.map((b) => `[${b.number}] ${b.text}`).join('  ') || 'none';
      throw new ConsoleProblem(`no button “${wanted}” is shown (buttons: ${shown})`);
    }
    this.out?.print([`(pressed [${target.number}] ${target.text})`]);
    this.answerAfter = this.opts.slack.calls.length;
    const home = 'ts' in target.message ? undefined : this.opts.slack.home(this.user)?.hash;
    await this.request(() => this.opts.driver.click(target.message, target.query, { user: this.user }));
    // A press on the Home tab is answered on the tab: it is published again.
    if (home !== undefined)
      await this.opts.slack
        .waitFor(() => this.opts.slack.home(this.user)?.hash !== home, {
          what: 'the Home tab',
          timeoutMs: 5_000,
        })
        .catch(() => {});
  }

  /** The modal on top of the current user's stack. */
  openModal(): FakeView | undefined {
    return this.opts.slack.views(this.user).at(-1);
  }

  valuesFor(view: FakeView): InputValues {
    let values = this.modalValues.get(view.id);
    if (!values) {
      values = {};
      this.modalValues.set(view.id, values);
    }
    return values;
  }

  modalLines(view: FakeView): string[] {
    return [
      ...describeModal(view, this.names),
      ...(this.opts.interactive ? [] : ['(answer with: fill name=value …, then submit; or cancel)']),
    ];
  }

  private fill(values: InputValues): void {
    const view = this.openModal();
    if (!view) throw new ConsoleProblem('no modal is open: fill answers a modal the bot opened');
    // A choice is picked by its number as shown (`1) Guides`), its value or its label.
    for (const field of modalFields(view)) {
      const given = values[field.actionId];
      if (typeof given !== 'string' || !field.options.length) continue;
      const picked = answerFor(field, given);
      if (picked === undefined)
        throw new ConsoleProblem(
          `“${given}” is not one of ${field.actionId}’s choices: ${field.options.map((o, i) => `${i + 1}) ${o.label}`).join('  ')}`,
        );
      values[field.actionId] = picked;
    }
    Object.assign(this.valuesFor(view), values);
    this.out?.print([`(filled ${Object.keys(values).join(', ')})`]);
  }

  /** Submits the open modal with what was filled; field errors come back onto the modal and are printed. */
  async submit(): Promise<void> {
    const view = this.openModal();
    if (!view) throw new ConsoleProblem('no modal is open: nothing to submit');
    const before = this.opts.slack.calls.length;
    await this.request(() => this.opts.driver.submit(view, this.valuesFor(view), { user: this.user }));
    const after = this.opts.slack.getView(view.id);
    if (after?.errors) {
      const problems = Object.entries(after.errors).map(([field, message]) => `  ✗ ${field}: ${message}`);
      this.out?.print(['(the modal answered with errors)', ...problems]);
    } else if (!after) {
      this.out?.print(['(modal submitted)']);
      // A submission that closed the modal is answered in the channel (the job's message, or a refusal).
      this.answerAfter = before;
    }
  }

  async closeModal(): Promise<void> {
    const view = this.openModal();
    if (!view) throw new ConsoleProblem('no modal is open');
    await this.request(() => this.opts.driver.close(view, { user: this.user }));
    this.out?.print(['(modal closed)']);
  }

  private switchUser(name: string): void {
    const wanted = name.trim().replace(/^@/, '').toLowerCase();
    const user = DEFAULT_USERS.find((u) => u.name === wanted || u.id.toLowerCase() === wanted);
    if (!user) {
      const known = DEFAULT_USERS.map((u) => `${u.name}${u.is_admin ? ' (admin)' : ''}`).join(', ');
      throw new ConsoleProblem(`no user “${name}”; users: ${known}`);
    }
    this.flush();
    this.user = user.id;
    // An assistant signing in now (Sign in with Slack on the stand-in) signs in as this person too.
    this.opts.slack.simulate.signInAs(user.id);
    this.homeOpen = false;
    // Buttons on channel messages are everyone's (an approver presses the card another person asked for); an
    // ephemeral's were the other user's alone.
    this.buttons = this.buttons.filter((b) => 'ts' in b.message && !b.message.ephemeral);
    this.out?.print([`(you are now ${user.name}, ${roleOf(user, this.opts.roles ?? {})})`]);
  }

  private switchChannel(name: string): void {
    const clean = name.trim().replace(/^#/, '');
    if (!/^[a-z0-9][a-z0-9_-]{0,79}$/i.test(clean))
      throw new ConsoleProblem('channel takes a name: channel #seo');
    const known = [...this.channelNames].find(([, n]) => n === clean.toLowerCase());
    const id =
      known?.[0] ??
      (/^[CG][A-Z0-9]{2,}$/.test(clean) ? clean : `C${clean.toUpperCase().replace(/[^A-Z0-9]/g, '')}`);
    if (!known && !/^[CG][A-Z0-9]{2,}$/.test(clean)) this.channelNames.set(id, clean.toLowerCase());
    this.flush();
    this.channel = id;
    this.feed.watch(id);
    this.out?.print([`(you are now in #${this.names.channel(id)})`]);
  }

  /**
   * One request to the bot. The driver refuses what Slack's client would not send (an empty required field,
   * a button that is gone): that is the person's mistake. Any other throw means the bot did not answer.
   */
  private async request(send: () => Promise<{ status: number; body: string } | undefined>): Promise<void> {
    let sent: { status: number; body: string } | undefined;
    try {
      sent = await send();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (message.startsWith('driver: no button matches'))
        throw new ConsoleProblem(
          'that button is no longer on its message: the message changed since (decided, replaced or a new page)',
        );
      if (message.startsWith('driver:')) throw new ConsoleProblem(message.replace(/^driver:\s*/, ''));
      this.outcome.crashed = true;
      throw new ConsoleProblem(`the bot did not answer: ${message}`);
    }
    if (sent) this.expectOk(sent);
  }

  private expectOk(sent: { status: number; body: string }): void {
    if (sent.status >= 500) {
      this.outcome.crashed = true;
      throw new ConsoleProblem(`the bot answered HTTP ${sent.status}: ${sent.body.slice(0, 200)}`);
    }
    if (sent.status !== 200) throw new ConsoleProblem(`the bot answered HTTP ${sent.status}`);
  }

  private report(error: unknown): void {
    this.answerAfter = undefined;
    if (!this.outcome.crashed) this.outcome.problems += 1;
    this.out?.print([`! ${error instanceof Error ? error.message : String(error)}`]);
  }
}
