/** Which Block Kit element types share which rules (see block-kit-limits.ts). */

export const SELECTS_WITH_PLACEHOLDER = new Set([
  'users_select',
  'multi_users_select',
  'conversations_select',
  'multi_conversations_select',
  'channels_select',
  'multi_channels_select',
  'external_select',
  'multi_external_select',
  'datepicker',
  'timepicker',
  'datetimepicker',
  'email_text_input',
  'url_text_input',
  'number_input',
  'rich_text_input',
  'file_input',
]);
export const STATIC_SELECTS = new Set(['static_select', 'multi_static_select']);
export const CHOICE_ELEMENTS = new Set(['checkboxes', 'radio_buttons']);
export const ACCESSORY_TYPES = new Set([
  'button',
  'image',
  'overflow',
  'static_select',
  'multi_static_select',
  'users_select',
  'multi_users_select',
  'conversations_select',
  'multi_conversations_select',
  'channels_select',
  'multi_channels_select',
  'external_select',
  'multi_external_select',
  'datepicker',
  'timepicker',
  'datetimepicker',
  'checkboxes',
  'radio_buttons',
]);
