import { parseFill } from './console-modal.js';
import type { SlackDriver } from './driver.js';
import type { FakeFunctionRun, FakeSlack } from './fake-slack/index.js';

/**
 * `workflow <step> [name=value …]`: Workflow Builder runs one of the bot's steps as the console's current person
 * in its current channel (`function_executed` through the stand-in), and the console prints how the step ended,
 * its outputs or its error, once it has. A value `@<step>.<output>` is an earlier step's output, as a workflow
 * hands one step's output to the next: `workflow deploy_blog post_id=@generate_blog.post_id`.
 */

const REFERENCE = /^@([a-z][a-z0-9_]*)\.([a-z][a-z0-9_]*)$/;

export class ConsoleWorkflows {
  /** Steps started and not yet shown as ended. */
  readonly #waiting: FakeFunctionRun[] = [];
  /** Each step's latest outputs, for `@step.output` values. */
  readonly #outputs = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly slack: FakeSlack,
    private readonly driver: SlackDriver,
  ) {}

  /** Starts a step; the lines say it started (its end is printed by `ended`, maybe at once). */
  async run(words: string[], as: { user: string; channel: string }): Promise<string[]> {
    const [step = '', ...rest] = words;
    if (!/^[a-z][a-z0-9_]*$/.test(step))
      throw new Error('workflow <step> [name=value …]: the step is an action’s name, such as seo_audit');
    const inputs: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(parseFill(rest.join(' '), `workflow ${step}`)))
      inputs[name] = this.#resolve(String(value));
    const sent = await this.driver.functionExecuted(step, {
      channel_id: as.channel,
      ...inputs,
      user: this.slack.functions.userContext(as.user),
    });
    if (sent.status !== 200) throw new Error(`the bot answered the step’s event with HTTP ${sent.status}`);
    this.#waiting.push(sent.run);
    const shown = Object.entries(inputs).map(([k, v]) => `${k}=${String(v)}`);
    return [`(workflow step ${step} started${shown.length ? `: ${shown.join(' ')}` : ''})`];
  }

  /** Lines for every started step that has ended since the last call. */
  ended(): string[] {
    const lines: string[] = [];
    for (let i = 0; i < this.#waiting.length; ) {
      const run = this.#waiting[i] as FakeFunctionRun;
      const end = this.slack.functions.run(run.executionId)?.ended;
      if (!end) {
        i += 1;
        continue;
      }
      this.#waiting.splice(i, 1);
      if (end.ok) {
        this.#outputs.set(run.callbackId, end.outputs);
        const shown = Object.entries(end.outputs).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
        lines.push(`workflow ${run.callbackId} completed: ${shown.join(' ')}`);
      } else lines.push(`workflow ${run.callbackId} failed: ${end.error}`);
    }
    return lines;
  }

  /** Steps still running (a guarded one waits for its approval). */
  get running(): number {
    return this.#waiting.length;
  }

  #resolve(value: string): unknown {
    const ref = REFERENCE.exec(value);
    if (!ref) return value;
    const [, step = '', output = ''] = ref;
    const outputs = this.#outputs.get(step);
    if (!outputs || !(output in outputs))
      throw new Error(`no output ${value.slice(1)} yet: run workflow ${step} first and let it complete`);
    return outputs[output];
  }
}
