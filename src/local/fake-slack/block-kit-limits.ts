/**
 * Slack's Block Kit limits, enforced the way the Web API does: every broken limit becomes one error string
 * "<what> [json-pointer:<where>]", which chat.* return as `invalid_blocks` and views.* as `invalid_arguments`.
 * Only limits our bot can break are modelled; a type Slack does not know is rejected.
 */

import {
  ACCESSORY_TYPES,
  CHOICE_ELEMENTS,
  SELECTS_WITH_PLACEHOLDER,
  STATIC_SELECTS,
} from './block-kit-types.js';

type Obj = Record<string, unknown>;
export type Surface = 'message' | 'modal' | 'home';

const MAX_BLOCKS: Record<Surface, number> = { message: 50, modal: 100, home: 100 };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class Checker {
  readonly errors: string[] = [];

  add(message: string, path: string): void {
    this.errors.push(`${message} [json-pointer:${path}]`);
  }

  /** A string field: present when required, at most `max` characters. */
  str(value: unknown, path: string, max: number, required = false): void {
    if (value === undefined || value === null) {
      if (required) this.add('must be provided', path);
      return;
    }
    if (typeof value !== 'string') {
      this.add('must be a string', path);
      return;
    }
    if (required && value.length === 0) {
      this.add('must be more than 0 characters', path);
      return;
    }
    if (value.length > max) this.add(`must be less than ${max + 1} characters`, path);
  }

  /**
   * An image's `slack_file`: exactly one of an uploaded file's `id` or its `url` (the API checks the id exists;
   * http-server.ts does, as it knows the uploads), and never beside `image_url`.
   */
  slackFile(value: unknown, path: string): void {
    if (!isObj(value)) {
      this.add('must be a slack_file object', path);
      return;
    }
    const hasId = typeof value.id === 'string' && value.id !== '';
    const hasUrl = typeof value.url === 'string' && value.url !== '';
    if (hasId === hasUrl) this.add('must provide exactly one of id or url', path);
  }

  /** A text object; `plainOnly` where Slack requires plain_text (headers, buttons, titles, labels). */
  text(
    value: unknown,
    path: string,
    max: number,
    opts: { required?: boolean; plainOnly?: boolean } = {},
  ): void {
    if (value === undefined || value === null) {
      if (opts.required) this.add('must be provided', path);
      return;
    }
    if (!isObj(value)) {
      this.add('must be a text object', path);
      return;
    }
    const allowed = opts.plainOnly ? ['plain_text'] : ['plain_text', 'mrkdwn'];
    if (!allowed.includes(value.type as string)) this.add('must be a valid enum value', `${path}/type`);
    this.str(value.text, `${path}/text`, max, true);
  }

  option(value: unknown, path: string, textMax: number, plainOnly: boolean): void {
    if (!isObj(value)) {
      this.add('must be an option object', path);
      return;
    }
    this.text(value.text, `${path}/text`, textMax, { required: true, plainOnly });
    this.str(value.value, `${path}/value`, 150, true);
    this.text(value.description, `${path}/description`, 75, { plainOnly });
  }

  options(value: unknown, path: string, max: number, textMax: number, plainOnly: boolean): void {
    if (!Array.isArray(value)) return;
    if (value.length > max) this.add(`must be less than ${max + 1} items`, path);
    value.forEach((o, i) => {
      this.option(o, `${path}/${i}`, textMax, plainOnly);
    });
  }

  confirm(value: unknown, path: string): void {
    if (!isObj(value)) return;
    this.text(value.title, `${path}/title`, 100, { required: true, plainOnly: true });
    this.text(value.text, `${path}/text`, 300, { required: true });
    this.text(value.confirm, `${path}/confirm`, 30, { required: true, plainOnly: true });
    this.text(value.deny, `${path}/deny`, 30, { required: true, plainOnly: true });
  }

  element(el: unknown, path: string): void {
    if (!isObj(el)) {
      this.add('must be an element object', path);
      return;
    }
    const type = el.type as string;
    this.str(el.action_id, `${path}/action_id`, 255);
    this.confirm(el.confirm, `${path}/confirm`);
    if (type === 'button') {
      this.text(el.text, `${path}/text`, 75, { required: true, plainOnly: true });
      this.str(el.value, `${path}/value`, 2000);
      this.str(el.url, `${path}/url`, 3000);
      if (el.style !== undefined && el.style !== 'primary' && el.style !== 'danger')
        this.add('must be a valid enum value', `${path}/style`);
    } else if (type === 'image') {
      this.str(el.alt_text, `${path}/alt_text`, 2000, true);
      if (el.slack_file === undefined) this.str(el.image_url, `${path}/image_url`, 3000, true);
      else this.slackFile(el.slack_file, `${path}/slack_file`);
    } else if (type === 'overflow') {
      if (!Array.isArray(el.options) || el.options.length < 1)
        this.add('must provide options', `${path}/options`);
      else if (el.options.length > 5) this.add('must be less than 6 items', `${path}/options`);
      else
        el.options.forEach((o, i) => {
          this.option(o, `${path}/options/${i}`, 75, true);
        });
    } else if (STATIC_SELECTS.has(type)) {
      this.text(el.placeholder, `${path}/placeholder`, 150, { plainOnly: true });
      if (el.options === undefined && el.option_groups === undefined)
        this.add('must provide options or option_groups', path);
      this.options(el.options, `${path}/options`, 100, 75, true);
      if (Array.isArray(el.option_groups)) {
        if (el.option_groups.length > 100) this.add('must be less than 101 items', `${path}/option_groups`);
        el.option_groups.forEach((g, i) => {
          const gp = `${path}/option_groups/${i}`;
          if (!isObj(g)) {
            this.add('must be an option group', gp);
            return;
          }
          this.text(g.label, `${gp}/label`, 75, { required: true, plainOnly: true });
          this.options(g.options, `${gp}/options`, 100, 75, true);
        });
      }
    } else if (CHOICE_ELEMENTS.has(type)) {
      if (!Array.isArray(el.options) || el.options.length < 1)
        this.add('must provide options', `${path}/options`);
      this.options(el.options, `${path}/options`, 10, 75, false);
    } else if (type === 'plain_text_input') {
      this.text(el.placeholder, `${path}/placeholder`, 150, { plainOnly: true });
      this.str(el.initial_value, `${path}/initial_value`, 3000);
      if (typeof el.max_length === 'number' && el.max_length > 3000)
        this.add('must be less than 3001', `${path}/max_length`);
    } else if (SELECTS_WITH_PLACEHOLDER.has(type)) {
      this.text(el.placeholder, `${path}/placeholder`, 150, { plainOnly: true });
    } else {
      this.add(`unsupported element type: ${String(type)}`, `${path}/type`);
    }
  }

  block(block: unknown, path: string, seenIds: Set<string>): void {
    if (!isObj(block)) {
      this.add('must be a block object', path);
      return;
    }
    if (block.block_id !== undefined) {
      this.str(block.block_id, `${path}/block_id`, 255);
      const id = String(block.block_id);
      if (seenIds.has(id)) this.add(`duplicate block_id: ${id}`, `${path}/block_id`);
      seenIds.add(id);
    }
    switch (block.type) {
      case 'section': {
        this.section(block, path);
        return;
      }
      case 'header': {
        this.text(block.text, `${path}/text`, 150, { required: true, plainOnly: true });
        return;
      }
      case 'divider':
        return;
      case 'image':
        this.str(block.alt_text, `${path}/alt_text`, 2000, true);
        if (block.slack_file === undefined) this.str(block.image_url, `${path}/image_url`, 3000, true);
        else this.slackFile(block.slack_file, `${path}/slack_file`);
        {
          this.text(block.title, `${path}/title`, 2000, { plainOnly: true });
          return;
        }
      case 'actions': {
        this.elementList(block.elements, `${path}/elements`, 25, (el, p) => this.element(el, p));
        return;
      }
      case 'context':
        this.elementList(block.elements, `${path}/elements`, 10, (el, p) => {
          if (isObj(el) && el.type === 'image') this.element(el, p);
          else this.text(el, p, 3000, { required: true });
        });
        return;
      case 'input':
        this.text(block.label, `${path}/label`, 2000, { required: true, plainOnly: true });
        this.text(block.hint, `${path}/hint`, 2000, { plainOnly: true });
        if (!isObj(block.element)) {
          this.add('must be provided', `${path}/element`);
          return;
        }
        {
          this.element(block.element, `${path}/element`);
          return;
        }
      case 'markdown': {
        this.str(block.text, `${path}/text`, 12000, true);
        return;
      }
      case 'rich_text':
      case 'video':
      case 'file':
        return;
      default:
        this.add(`unsupported type: ${String(block.type)}`, `${path}/type`);
    }
  }

  private section(block: Obj, path: string): void {
    if (block.text === undefined && block.fields === undefined)
      this.add('must provide either text or fields', path);
    this.text(block.text, `${path}/text`, 3000);
    if (Array.isArray(block.fields)) {
      if (block.fields.length > 10) this.add('must be less than 11 items', `${path}/fields`);
      block.fields.forEach((f, i) => {
        this.text(f, `${path}/fields/${i}`, 2000, { required: true });
      });
    }
    if (block.accessory !== undefined) {
      const type = isObj(block.accessory) ? (block.accessory.type as string) : '';
      if (!ACCESSORY_TYPES.has(type))
        this.add(`unsupported accessory type: ${type}`, `${path}/accessory/type`);
      else this.element(block.accessory, `${path}/accessory`);
    }
  }

  private elementList(
    list: unknown,
    path: string,
    max: number,
    each: (el: unknown, p: string) => void,
  ): void {
    if (!Array.isArray(list) || list.length === 0) {
      this.add('must provide at least 1 item', path);
      return;
    }
    if (list.length > max) this.add(`must be less than ${max + 1} items`, path);
    const actionIds = new Set<string>();
    list.forEach((el, i) => {
      if (isObj(el) && typeof el.action_id === 'string') {
        if (actionIds.has(el.action_id))
          this.add(`duplicate action_id: ${el.action_id}`, `${path}/${i}/action_id`);
        actionIds.add(el.action_id);
      }
      each(el, `${path}/${i}`);
    });
  }

  blocks(blocks: unknown, path: string, surface: Surface): void {
    if (!Array.isArray(blocks)) {
      this.add('must be an array', path);
      return;
    }
    const max = MAX_BLOCKS[surface];
    if (blocks.length > max) this.add(`no more than ${max} items allowed`, path);
    const seen = new Set<string>();
    blocks.forEach((b, i) => {
      this.block(b, `${path}/${i}`, seen);
    });
  }
}

/** Errors for a message's or a modal's `blocks` array; empty when Slack would accept it. */
export function validateBlocks(blocks: unknown, surface: Surface): string[] {
  const checker = new Checker();
  checker.blocks(blocks, '/blocks', surface);
  return checker.errors;
}

/** Errors for a whole modal view as views.open/push/update receive it (paths start at /view). */
export function validateView(view: unknown): string[] {
  const c = new Checker();
  if (!isObj(view)) {
    c.add('must be a view object', '/view');
    return c.errors;
  }
  if (view.type !== 'modal') c.add('must be a valid enum value', '/view/type');
  c.text(view.title, '/view/title', 24, { required: true, plainOnly: true });
  c.text(view.submit, '/view/submit', 24, { plainOnly: true });
  c.text(view.close, '/view/close', 24, { plainOnly: true });
  c.str(view.callback_id, '/view/callback_id', 255);
  c.str(view.private_metadata, '/view/private_metadata', 3000);
  c.str(view.external_id, '/view/external_id', 255);
  c.blocks(view.blocks, '/view/blocks', 'modal');
  const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isObj(b) && b.type === 'input');
  if (hasInput && view.submit === undefined)
    c.add('must provide submit when the view has input blocks', '/view/submit');
  return c.errors;
}

/** Errors for a Home tab as views.publish receives it (paths start at /view). */
export function validateHomeView(view: unknown): string[] {
  const c = new Checker();
  if (!isObj(view)) {
    c.add('must be a view object', '/view');
    return c.errors;
  }
  if (view.type !== 'home') c.add('must be a valid enum value', '/view/type');
  c.str(view.callback_id, '/view/callback_id', 255);
  c.str(view.private_metadata, '/view/private_metadata', 3000);
  c.str(view.external_id, '/view/external_id', 255);
  c.blocks(view.blocks, '/view/blocks', 'home');
  return c.errors;
}
