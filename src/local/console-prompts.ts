import type { LineSource } from './console-input.js';
import { answerFor, type ModalField, modalFields } from './console-modal.js';
import type { FakeView } from './fake-slack/index.js';
import type { InputValues } from './view-state.js';

/** The part of the console the prompts need (kept narrow so the two files do not import each other's state). */
export interface ModalHost {
  openModal(): FakeView | undefined;
  valuesFor(view: FakeView): InputValues;
  modalLines(view: FakeView): string[];
  submit(): Promise<void>;
  closeModal(): Promise<void>;
  settle(forJobs?: boolean): Promise<void>;
}

const MAX_ROUNDS = 10;

function promptFor(f: ModalField, current: string | undefined): string {
  const shown = current ?? f.initial;
  const choices = f.options.length ? ` (1–${f.options.length})` : '';
  return `  ${f.label}${f.optional ? ' (optional)' : ''}${choices}${shown ? ` [${shown}]` : ''}: `;
}

/**
 * Asks a person for each field of the open modal, submits, and asks again for the fields the bot marked
 * wrong (or for the new content a `response_action: update` put there), until the modal closes. `cancel` at
 * any prompt closes it. Returns 'eof' when the input ended mid-modal.
 */
export async function fillModalInteractively(
  host: ModalHost,
  source: LineSource,
): Promise<'done' | 'cancelled' | 'eof'> {
  let shownHash = '';
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const view = host.openModal();
    if (!view) return 'done';
    const fields = modalFields(view);
    if (fields.length === 0 && !view.view?.submit) {
      // A "Loading…" view: the bot fills it with views.update in a moment.
      await host.settle(false);
      if (host.openModal()?.hash === view.hash) return 'done';
      continue;
    }
    if (view.hash !== shownHash) {
      source.print(host.modalLines(view));
      shownHash = view.hash;
    }
    const values = host.valuesFor(view);
    const wrong = fields.filter((f) => f.error);
    for (const f of wrong.length ? wrong : fields) {
      if (f.error) source.print([`  ✗ ${f.label}: ${f.error}`]);
      for (;;) {
        const current = values[f.actionId];
        const typed = await source.next(promptFor(f, typeof current === 'string' ? current : undefined));
        if (typed === undefined) return 'eof';
        const text = typed.trim();
        if (text.toLowerCase() === 'cancel') {
          await host.closeModal();
          return 'cancelled';
        }
        if (text) {
          const answer = answerFor(f, text);
          if (answer === undefined) {
            source.print([`  (choose 1–${f.options.length}, or leave it empty)`]);
            continue;
          }
          values[f.actionId] = answer;
        }
        if (f.optional || values[f.actionId] || f.initial) break;
        source.print(['  (required: type a value, or cancel)']);
      }
    }
    if (fields.length === 0) {
      const typed = await source.next('  Enter submits, cancel closes: ');
      if (typed === undefined) return 'eof';
      if (typed.trim().toLowerCase() === 'cancel') {
        await host.closeModal();
        return 'cancelled';
      }
    }
    try {
      await host.submit();
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('the bot')) throw error;
      // A value Slack's client would refuse (not one of the options): say so and ask again.
      source.print([`  ! ${error instanceof Error ? error.message : String(error)}`]);
      shownHash = '';
      continue;
    }
    await host.settle(false);
  }
  return 'done';
}
