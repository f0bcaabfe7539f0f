// Block Kit to DOM for the playground page. Text goes in through textContent or the escaping
// mrkdwn renderer only. Interactive elements call back into the page with what the fake Slack's
// drivers need: a button's index among the surface's buttons, a select's label or placeholder.

import { renderMrkdwn, renderPlainText } from './mrkdwn.js';

const TEXT_INPUTS = {
  plain_text_input: 'text',
  email_text_input: 'email',
  url_text_input: 'url',
  number_input: 'number',
  datepicker: 'date',
  timepicker: 'time',
};

/** Selects whose options are the workspace's channels or people; the pick is an id, as Slack sends it. */
const DIRECTORY_SELECTS = {
  conversations_select: 'channels',
  channels_select: 'channels',
  users_select: 'people',
  multi_conversations_select: 'channels',
  multi_channels_select: 'channels',
  multi_users_select: 'people',
};

/** How the page draws each element of an input block, by type; the dispatch in inputBlock reads it. */
const INPUT_CONTROLS = {
  ...Object.fromEntries(Object.keys(TEXT_INPUTS).map((type) => [type, 'text'])),
  ...Object.fromEntries(Object.keys(DIRECTORY_SELECTS).map((type) => [type, 'directory'])),
  static_select: 'static',
  multi_static_select: 'multiStatic',
  external_select: 'external',
  radio_buttons: 'choices',
  checkboxes: 'choices',
};

/** In a section's accessory or an actions block, where a pick goes to the app at once. */
const ACTION_CONTROLS = {
  button: 'button',
  image: 'image',
  static_select: 'static',
  conversations_select: 'directory',
  channels_select: 'directory',
  users_select: 'directory',
};

/** Elements the page draws, by where they sit; anything else shows a note saying it is not shown. */
export const DRAWN_ELEMENTS = {
  input: new Set(Object.keys(INPUT_CONTROLS)),
  action: new Set(Object.keys(ACTION_CONTROLS)),
};

/** Blocks the page draws. */
export const DRAWN_BLOCKS = new Set([
  'section',
  'header',
  'divider',
  'context',
  'actions',
  'image',
  'input',
  'markdown',
]);

/** Creates an element; `props` are DOM properties (className, textContent, …) or `on…` listeners. */
export function h(tag, props = {}, children = []) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(element.dataset, value);
    else if (key in element) element[key] = value;
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of [children].flat()) {
    if (child !== undefined && child !== null && child !== false) element.append(child);
  }
  return element;
}

function textOf(object) {
  return typeof object?.text === 'string' ? object.text : '';
}

/** A text object as HTML: mrkdwn or plain text, both escaped. */
export function richText(object, names, tag = 'div', className = 'text') {
  const element = h(tag, { className });
  element.innerHTML = object?.type === 'mrkdwn' ? renderMrkdwn(textOf(object), names) : renderPlainText(textOf(object));
  return element;
}

function imagePlaceholder(element) {
  const alt = typeof element.alt_text === 'string' ? element.alt_text : 'image';
  return h('span', { className: 'image-alt', title: alt, textContent: `Image: ${alt}` });
}

/** The ids a channel or people select starts with, from its initial_* field. */
function initialIds(element) {
  const initial =
    element.initial_conversation ??
    element.initial_channel ??
    element.initial_user ??
    element.initial_conversations ??
    element.initial_channels ??
    element.initial_users;
  return [initial].flat().filter((id) => typeof id === 'string');
}

/** The ids held in a channel or people select's state, as Slack keeps them. */
function stateIds(state) {
  const held =
    state.selected_conversation ??
    state.selected_channel ??
    state.selected_user ??
    state.selected_conversations ??
    state.selected_channels ??
    state.selected_users;
  return [held].flat().filter((id) => typeof id === 'string');
}

function unsupported(what) {
  return h('div', { className: 'unsupported', textContent: `(${what} is not shown in the playground)` });
}

/** Options of a static element, flattened out of option groups, with the group each came from. */
function optionsOf(element) {
  if (Array.isArray(element.options)) return element.options.map((option) => ({ option, group: undefined }));
  return (element.option_groups ?? []).flatMap((group) =>
    (group.options ?? []).map((option) => ({ option, group: textOf(group.label) })),
  );
}

/**
 * Draws blocks into a container. `context` carries:
 *   names: user and channel id → name; channels, people: the workspace's, for channel and people selects;
 *   state: { values, errors } for inputs (modal only);
 *   edits: Map of `${blockId}/${actionId}` → { blockId, actionId, value } typed but not yet sent;
 *   onClick(button, index), onChoose(label, optionTextOrId), onUnchoose(label, optionTextOrId),
 *   onSearch(label, query) → Promise<options>.
 */
export function renderBlocks(blocks, context) {
  let buttonIndex = 0;
  const container = h('div', { className: 'blocks' });

  function button(element) {
    const index = buttonIndex++;
    const style = element.style === 'primary' || element.style === 'danger' ? element.style : 'default';
    return h('button', {
      type: 'button',
      className: `bk-button ${style}`,
      textContent: textOf(element.text),
      onclick: (event) => context.onClick(element, index, event.currentTarget),
    });
  }

  /** A select, radio group or checkbox group outside a modal input: the pick goes to the app at once. */
  function interactive(element, label) {
    switch (ACTION_CONTROLS[element.type]) {
      case 'button':
        return button(element);
      case 'image':
        return imagePlaceholder(element);
      // A select is found by its label or placeholder; without either nobody could pick in it.
      case 'static':
        if (label) return staticSelect(element, label, element.initial_option);
        break;
      case 'directory':
        if (label) return directorySelect(element, label, initialIds(element));
        break;
    }
    return unsupported(`A ${element.type ?? 'element'}`);
  }

  function staticSelect(element, label, selected, key) {
    const select = h('select', {
      className: 'bk-select',
      'aria-label': label,
      dataset: key ? { key } : undefined,
      onchange: (event) => {
        const option = event.currentTarget.selectedOptions[0];
        if (option?.value) context.onChoose(label, option.textContent);
      },
    });
    select.append(
      h('option', {
        value: '',
        textContent: textOf(element.placeholder) || 'Select an option',
        disabled: true,
        selected: !selected,
      }),
    );
    const groups = new Map();
    for (const { option, group } of optionsOf(element)) {
      const item = h('option', {
        value: option.value ?? '',
        textContent: textOf(option.text),
        selected: selected?.value === option.value,
      });
      if (group === undefined) select.append(item);
      else {
        if (!groups.has(group)) select.append(groups.set(group, h('optgroup', { label: group })).get(group));
        groups.get(group).append(item);
      }
    }
    return select;
  }

  /** A multi_static_select: every chosen option stays chosen until the person takes it off. */
  function multiStaticSelect(element, label, chosen, key) {
    const chosenValues = new Set((chosen ?? []).map((option) => option.value));
    const select = h('select', {
      className: 'bk-select multi',
      multiple: true,
      size: Math.min(6, Math.max(2, optionsOf(element).length)),
      'aria-label': label,
      dataset: { key },
      onchange: (event) => {
        for (const item of event.currentTarget.options) {
          if (item.selected && !chosenValues.has(item.value)) context.onChoose(label, item.textContent);
          if (!item.selected && chosenValues.has(item.value)) context.onUnchoose(label, item.textContent);
        }
      },
    });
    const groups = new Map();
    for (const { option, group } of optionsOf(element)) {
      const item = h('option', {
        value: option.value ?? '',
        textContent: textOf(option.text),
        selected: chosenValues.has(option.value),
      });
      if (group === undefined) select.append(item);
      else {
        if (!groups.has(group)) select.append(groups.set(group, h('optgroup', { label: group })).get(group));
        groups.get(group).append(item);
      }
    }
    return h('div', { className: 'multi-select' }, [
      select,
      h('div', {
        className: 'hint',
        textContent: textOf(element.placeholder) || 'Ctrl-click or Cmd-click to choose more than one',
      }),
    ]);
  }

  /** A channel or people select: the playground's channels or people, picked by id. */
  function directorySelect(element, label, chosenIds, key) {
    const kind = DIRECTORY_SELECTS[element.type];
    const multiple = element.type.startsWith('multi_');
    const entries =
      kind === 'channels'
        ? (context.channels ?? []).map((channel) => ({ id: channel.id, text: `# ${channel.name}` }))
        : (context.people ?? []).map((person) => ({ id: person.id, text: person.name }));
    const chosen = new Set(chosenIds.filter(Boolean));
    const select = h('select', {
      className: `bk-select${multiple ? ' multi' : ''}`,
      multiple,
      'aria-label': label,
      dataset: key ? { key } : undefined,
      onchange: (event) => {
        for (const item of event.currentTarget.options) {
          if (!item.value) continue;
          if (item.selected && !chosen.has(item.value)) context.onChoose(label, item.value);
          if (multiple && !item.selected && chosen.has(item.value)) context.onUnchoose(label, item.value);
        }
      },
    });
    if (!multiple) {
      const placeholder = textOf(element.placeholder) || (kind === 'channels' ? 'Select a channel' : 'Select a person');
      select.append(h('option', { value: '', textContent: placeholder, disabled: true, selected: chosen.size === 0 }));
    }
    for (const entry of entries)
      select.append(h('option', { value: entry.id, textContent: entry.text, selected: chosen.has(entry.id) }));
    return select;
  }

  function externalSelect(element, label, selected, key) {
    const list = h('ul', { className: 'suggestions', role: 'listbox', hidden: true });
    const field = h('input', {
      type: 'text',
      className: 'bk-input',
      placeholder: textOf(element.placeholder) || 'Type to search',
      value: textOf(selected?.text),
      autocomplete: 'off',
      role: 'combobox',
      'aria-label': label,
      dataset: { key },
    });
    let latest = 0;
    async function search() {
      const ticket = ++latest;
      const options = await context.onSearch(label, field.value === textOf(selected?.text) ? '' : field.value);
      if (ticket !== latest) return;
      list.replaceChildren(
        ...options.map((option) =>
          h('li', {
            role: 'option',
            textContent: option.text,
            onmousedown: (event) => {
              event.preventDefault();
              field.value = option.text;
              list.hidden = true;
              context.onChoose(label, option.text);
            },
          }),
        ),
      );
      if (options.length === 0) list.append(h('li', { className: 'empty', textContent: 'No matches' }));
      list.hidden = false;
    }
    let timer;
    field.addEventListener('focus', () => void search());
    field.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => void search(), 200);
    });
    field.addEventListener('blur', () => {
      list.hidden = true;
    });
    return h('div', { className: 'combobox' }, [field, list]);
  }

  function choiceGroup(element, label, state, key) {
    const multiple = element.type === 'checkboxes';
    const chosen = new Set(
      multiple
        ? (state?.selected_options ?? []).map((option) => option.value)
        : [state?.selected_option?.value].filter(Boolean),
    );
    const name = `${label}-${Math.random().toString(36).slice(2)}`;
    return h(
      'div',
      { className: 'choices' },
      optionsOf(element).map(({ option }, index) =>
        h('label', { className: 'choice' }, [
          h('input', {
            type: multiple ? 'checkbox' : 'radio',
            name,
            dataset: { key: `${key}#${index}` },
            checked: chosen.has(option.value),
            onchange: () => context.onChoose(label, textOf(option.text)),
          }),
          richText(option.text, context.names, 'span', 'choice-text'),
          option.description ? richText(option.description, context.names, 'span', 'choice-description') : null,
        ]),
      ),
    );
  }

  function textInput(element, label, key, state, field) {
    const multiline = element.type === 'plain_text_input' && element.multiline === true;
    const edited = context.edits?.get(key);
    const serverValue = state?.value ?? state?.selected_date ?? state?.selected_time ?? '';
    const input = h(multiline ? 'textarea' : 'input', {
      className: 'bk-input',
      type: multiline ? undefined : TEXT_INPUTS[element.type],
      value: edited?.value ?? serverValue ?? '',
      placeholder: textOf(element.placeholder),
      maxLength: element.max_length,
      minLength: element.min_length,
      min: element.min_value,
      max: element.max_value,
      step: element.type === 'number_input' ? (element.is_decimal_allowed ? 'any' : '1') : undefined,
      rows: multiline ? 4 : undefined,
      'aria-label': label,
      dataset: { key },
      oninput: (event) => context.edits?.set(key, { ...field, value: event.currentTarget.value }),
    });
    return input;
  }

  function inputBlock(block) {
    const element = block.element ?? {};
    const label = textOf(block.label).replace(/\s+/g, ' ').trim();
    const key = `${block.block_id}/${element.action_id}`;
    const state = context.state?.values?.[block.block_id]?.[element.action_id];
    const controls = {
      text: () => textInput(element, label, key, state, { blockId: block.block_id, actionId: element.action_id }),
      static: () => staticSelect(element, label, state?.selected_option ?? element.initial_option, key),
      multiStatic: () => multiStaticSelect(element, label, state?.selected_options ?? element.initial_options, key),
      external: () => externalSelect(element, label, state?.selected_option ?? element.initial_option, key),
      choices: () => choiceGroup(element, label, state, key),
      directory: () => directorySelect(element, label, state ? stateIds(state) : initialIds(element), key),
    };
    const control = controls[INPUT_CONTROLS[element.type]]?.() ?? unsupported(`A ${element.type ?? 'input'}`);
    const error = context.state?.errors?.[label];
    return h(
      'div',
      {
        className: `bk-input-block${error ? ' has-error' : ''}`,
        dataset: { field: key, required: block.optional === true ? 'no' : 'yes' },
      },
      [
        h('label', { className: 'input-label' }, [
          label,
          block.optional ? h('span', { className: 'optional', textContent: ' (optional)' }) : null,
        ]),
        control,
        block.hint ? richText(block.hint, context.names, 'div', 'hint') : null,
        h('div', { className: 'field-error', role: 'alert', textContent: error ?? '' }),
      ],
    );
  }

  for (const block of Array.isArray(blocks) ? blocks : []) {
    if (!DRAWN_BLOCKS.has(block?.type)) {
      container.append(unsupported(`A ${block?.type ?? 'block'} block`));
      continue;
    }
    switch (block.type) {
      case 'section': {
        const body = h('div', { className: 'section-body' }, [
          block.text ? richText(block.text, context.names) : null,
          Array.isArray(block.fields)
            ? h(
                'div',
                { className: 'fields' },
                block.fields.map((field) => richText(field, context.names, 'div', 'field')),
              )
            : null,
        ]);
        const accessory = block.accessory
          ? h('div', { className: 'accessory' }, interactive(block.accessory, textOf(block.text)))
          : null;
        container.append(h('div', { className: 'bk-section' }, [body, accessory]));
        break;
      }
      case 'header':
        container.append(richText(block.text, context.names, 'div', 'bk-header'));
        break;
      case 'divider':
        container.append(h('hr', { className: 'bk-divider' }));
        break;
      case 'context':
        container.append(
          h(
            'div',
            { className: 'bk-context' },
            (block.elements ?? []).map((element) =>
              element.type === 'image'
                ? imagePlaceholder(element)
                : richText(element, context.names, 'span', 'context-text'),
            ),
          ),
        );
        break;
      case 'actions':
        container.append(
          h(
            'div',
            { className: 'bk-actions' },
            (block.elements ?? []).map((element) => interactive(element, textOf(element.placeholder))),
          ),
        );
        break;
      case 'image':
        container.append(
          h('div', { className: 'bk-image' }, [
            block.title ? richText(block.title, context.names) : null,
            imagePlaceholder(block),
          ]),
        );
        break;
      case 'input':
        container.append(inputBlock(block));
        break;
      case 'markdown':
        container.append(richText({ type: 'mrkdwn', text: block.text }, context.names));
        break;
    }
  }
  return container;
}
