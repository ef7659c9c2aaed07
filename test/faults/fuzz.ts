import fc from 'fast-check';
import type { InputValues } from '../../src/local/view-state.js';
import { describeOpenJobs, openJobs, type Sent, send } from '../fleet/audit.js';
import { FLEET_MEMBER, type Fleet } from '../fleet/fleet.js';
import type { PrivateRedis } from '../fleet/private-redis.js';
import { CHANNEL, type FaultRow, runRow } from './row.js';

/**
 * Fuzzed command texts and modal values from fast-check, through a real web process and a worker: random
 * unicode, huge strings, mentions, links, quotes and Slack's entities, after every command word. Whatever
 * comes in, the bot answers (within Slack's 3 s), posts only valid Block Kit, and never lets the text ping,
 * mention or link (the audit reads every message and view the stand-in holds).
 */

const ENTITIES = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<!subteam^S0FUZZ|@devs>',
  '<@U0FUZZ>',
  '<@U0FUZZ|mallory>',
  '<#C0FUZZ|general>',
  '<!date^1392734382^{date_pretty}|Feb 18>',
  '<https://evil.example/x|click me>',
  '<http://evil.example>',
  '<mailto:a@evil.example|mail me>',
  '<javascript:alert(1)|x>',
  '<slack://open?team=T1>',
  '@channel',
  '@here',
  '&lt;!channel&gt;',
  '&amp;',
  '"',
  "'",
  '“smart”',
  '‘single’',
  '«guillemets»',
  '`code`',
  '```block```',
  '*bold* _it_ ~s~',
  '> quote',
  '\\',
  '=',
  'a=b=c',
  '|',
];

const COMMANDS = [
  '',
  'help ',
  'audit ',
  'audit https://bright-dental.example/',
  'map ',
  'ideas seed=',
  'ideas location=',
  'gbp ',
  'image ',
  'outreach https://prospect.example/ tone=',
  'optimize https://bright-dental.example/ keyword=',
  'keywords ',
  'keywords order=',
  'reviews limit=',
  'get ',
  'get keywords ',
  'run ',
  'run generate_faq topic=',
  'use ',
  'status ',
  'jobs ',
  'index ',
  'llm brand ',
  'grid ',
  'clients ',
];

const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ENTITIES) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 3_000, maxLength: 12_000 }) },
);

const fuzzText = fc
  .tuple(fc.constantFrom(...COMMANDS), fc.array(piece, { minLength: 1, maxLength: 6 }), fc.boolean())
  .map(([command, pieces, quoted]) => {
    const body = pieces.join(quoted ? '" "' : ' ');
    return `${command}${quoted ? `"${body}"` : body}`;
  });

const LLM = 'llm brand ';
const MODAL_COMMANDS = ['blog', 'press', 'geo', 'score-call'];

export async function fuzzRow(redis: PrivateRedis, cases: number, seed: number): Promise<FaultRow> {
  const modals = Math.max(1, Math.round(cases / 10));
  const texts = fc.sample(fuzzText, { numRuns: cases - modals, seed });
  const values = fc.sample(fc.array(piece, { minLength: 1, maxLength: 4 }), { numRuns: modals * 4, seed });
  // The fuzz cannot know which texts queue a job, so the audit does not follow them one by one: a job still
  // unfinished after the wait is lost (the audit's own meaning of the word), and named under the table.
  let unfinished: string[] = [];
  const row = await runRow(
    'fuzzed command texts and modal values',
    `${cases - modals} texts + ${modals} modals (seed ${seed})`,
    {
      name: 'fuzz',
      redisUrl: redis.url,
      web: 1,
      workers: 1,
      tuning: { reconcileGraceMs: 100, backoffMs: 10 },
      env: { GATEWAY_ACTION_TIMEOUT: '2s' },
    },
    async (fleet) => {
      const sent: Sent[] = [];
      let noModal = 0;
      const unopened: string[] = [];
      let next = 0;
      const lane = async () => {
        while (next < texts.length) {
          const i = next++;
          const marker = `fz${String(i).padStart(5, '0')}z`;
          // The audit links a command to its answer by the marker. An LLM check's status names only the brand,
          // so there the marker is the brand and the fuzz the prompt; elsewhere it trails the fuzz.
          const text = texts[i] ?? '';
          const marked = text.startsWith(LLM)
            ? `llm ${marker} ${text.slice(LLM.length)}`
            : `${text} ${marker}`;
          const s = await send(fleet, marked, {
            marker,
            channel: CHANNEL,
            user: FLEET_MEMBER,
          });
          sent.push(s);
        }
      };
      await Promise.all(Array.from({ length: 6 }, lane));
      let submitted = 0;
      let refused = 0;
      for (let i = 0; i < modals; i++) {
        const command = MODAL_COMMANDS[i % MODAL_COMMANDS.length] ?? 'blog';
        const { result, sent: asked, why } = await fuzzModal(fleet, command, values, i);
        if (why) unopened.push(`${asked.marker} (${command}): ${why}`);
        // A form command that opened no form is audited like any command: it must have been answered.
        if (result === 'no modal') sent.push(asked);
        if (result === 'submitted') submitted += 1;
        else if (result === 'refused') refused += 1;
        else noModal += 1;
      }
      // The jobs the fuzz queued must end too (they are audited like any other: unescaped text in their results).
      // A form's job is queued just after its submission is acked, so no open job counts only once it has held
      // for a second; a first empty look could come before the last submission's job was added.
      const deadline = Date.now() + 60_000;
      let quietSince: number | undefined;
      while (Date.now() < deadline) {
        if ((await openJobs(fleet)) > 0) quietSince = undefined;
        else {
          quietSince ??= Date.now();
          if (Date.now() - quietSince >= 1_000) break;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      const open = await openJobs(fleet);
      unfinished = open ? await describeOpenJobs(fleet) : [];
      const non200 = sent.filter((s) => s.status !== 200).length;
      const posts = fleet.sandbox.requests().filter((r) => r.method === 'POST').length;
      const slow = sent.filter((s) => s.ackMs > 3_000).length;
      return {
        sent,
        details: unopened.slice(0, 5).map((u) => `form not opened: ${u}`),
        note:
          `modals: ${submitted} submitted, ${refused} answered with field errors, ${noModal} not opened; ` +
          `acks not 200: ${non200}, over 3 s: ${slow}; gateway POSTs (jobs run) ${posts}, jobs unfinished: ${open}`,
      };
    },
    30_000,
  );
  if (!unfinished.length) return row;
  return {
    ...row,
    lost: Number(row.lost) + unfinished.length,
    details: [...unfinished.map((j) => `lost: unfinished ${j}`), ...row.details].slice(0, 12),
  };
}

/** How long a form may take to open (and fill its selects) or the command to be answered otherwise. */
const FORM_MS = 10_000;

/**
 * Opens an action's modal and submits it with fuzz in every text input; how the bot answered. The form is
 * known by the trigger id of its command (not by how many views are open: a form left open earlier would hide
 * every later one), and the wait ends as soon as the command is answered some other way.
 */
async function fuzzModal(
  fleet: Fleet,
  command: string,
  values: string[][],
  i: number,
): Promise<{ result: 'submitted' | 'refused' | 'no modal'; sent: Sent; why?: string }> {
  const sent = await send(fleet, command, {
    marker: `fm${String(i).padStart(5, '0')}z`,
    channel: CHANNEL,
    user: FLEET_MEMBER,
  });
  const responseId = sent.responseUrl.slice(sent.responseUrl.lastIndexOf('/') + 1);
  const opened = () => fleet.slack.views(FLEET_MEMBER).find((v) => v.trigger_id === sent.triggerId);
  const ready = () => opened()?.view.blocks.some((b: { type: string }) => b.type === 'input');
  const answered = () =>
    fleet.slack.calls.some((c) => c.ok && c.method === 'response_url' && c.responseUrl === responseId);
  await fleet.slack
    .waitFor(() => ready() || (!opened() && answered()), {
      what: `the ${command} form or another answer to ${sent.marker}`,
      timeoutMs: FORM_MS,
    })
    .catch(() => undefined);
  const view = ready() ? opened() : undefined;
  if (!view) {
    // A form that opened but never filled in (its "Loading…" view) is closed, so the next starts clean.
    const stuck = opened();
    if (stuck)
      await fleet
        .driver()
        .close(stuck, { user: FLEET_MEMBER })
        .catch(() => {});
    const said = fleet.slack.calls.find(
      (c) => c.ok && c.method === 'response_url' && c.responseUrl === responseId,
    )?.args.text;
    const why = stuck
      ? 'the form opened but never filled in'
      : typeof said === 'string'
        ? `answered "${said.slice(0, 120)}"`
        : `no form and no answer in ${FORM_MS / 1_000} s`;
    return { result: 'no modal', sent, why };
  }
  const inputs: InputValues = {};
  let k = 0;
  for (const block of view.view.blocks as Array<{
    type: string;
    element?: { type: string; action_id: string };
  }>) {
    if (block.type !== 'input' || block.element?.type !== 'plain_text_input') continue;
    // Slack's client submits no empty required input: a blank fuzz value becomes one character.
    const value = (values[(i * 4 + k++) % values.length] ?? []).join(' ');
    inputs[block.element.action_id] = value.trim() ? value : 'x';
  }
  const answer = await fleet.driver().submit(view, inputs, { user: FLEET_MEMBER });
  // Whatever the answer, the modal goes: the next command opens a fresh one.
  if (fleet.slack.getView(view.id))
    await fleet
      .driver()
      .close(view, { user: FLEET_MEMBER })
      .catch(() => {});
  return { result: answer.json?.response_action === 'errors' ? 'refused' : 'submitted', sent };
}
