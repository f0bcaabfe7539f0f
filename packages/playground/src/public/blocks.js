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

function unsupported(what) {
  return h('div', { className: 'unsupported', textContent: `(${what} is not shown in the playground)` });
}

/** Options of a static element, flattened out of option groups, with the group each came from. */
function optionsOf(element) {
  if (Array.isArray(element.options)) return element.options.map((option) => ({ option, group: undefined }));
  return (element.option_groups ?? []).flatMap((group) => (group.options ?? []).map((option) => ({ option, group: textOf(group.label) })));
}

/**
 * Draws blocks into a container. `context` carries:
 *   names: user id → name; state: { values, errors } for inputs (modal only);
 *   edits: Map of `${blockId}/${actionId}` → { label, value } typed but not yet sent;
 *   onClick(button, index), onChoose(label, optionText), onSearch(label, query) → Promise<options>.
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
    if (element.type === 'button') return button(element);
    if (element.type === 'image') return imagePlaceholder(element);
    if (element.type === 'static_select' && label) {
      return staticSelect(element, label, element.initial_option);
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
    select.append(h('option', { value: '', textContent: textOf(element.placeholder) || 'Select an option', disabled: true, selected: !selected }));
    const groups = new Map();
    for (const { option, group } of optionsOf(element)) {
      const item = h('option', { value: option.value ?? '', textContent: textOf(option.text), selected: selected?.value === option.value });
      if (group === undefined) select.append(item);
      else {
        if (!groups.has(group)) select.append(groups.set(group, h('optgroup', { label: group })).get(group));
        groups.get(group).append(item);
      }
    }
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
      list.replaceChildren(...options.map((option) => h('li', {
        role: 'option',
        textContent: option.text,
        onmousedown: (event) => {
          event.preventDefault();
          field.value = option.text;
          list.hidden = true;
          context.onChoose(label, option.text);
        },
      })));
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
    const chosen = new Set(multiple
      ? (state?.selected_options ?? []).map((option) => option.value)
      : [state?.selected_option?.value].filter(Boolean));
    const name = `${label}-${Math.random().toString(36).slice(2)}`;
    return h('div', { className: 'choices' }, optionsOf(element).map(({ option }, index) => h('label', { className: 'choice' }, [
      h('input', {
        type: multiple ? 'checkbox' : 'radio',
        name,
        dataset: { key: `${key}#${index}` },
        checked: chosen.has(option.value),
        onchange: () => context.onChoose(label, textOf(option.text)),
      }),
      richText(option.text, context.names, 'span', 'choice-text'),
      option.description ? richText(option.description, context.names, 'span', 'choice-description') : null,
    ])));
  }

  function textInput(element, label, key, state) {
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
      oninput: (event) => context.edits?.set(key, { label, value: event.currentTarget.value }),
    });
    return input;
  }

  function inputBlock(block) {
    const element = block.element ?? {};
    const label = textOf(block.label).replace(/\s+/g, ' ').trim();
    const key = `${block.block_id}/${element.action_id}`;
    const state = context.state?.values?.[block.block_id]?.[element.action_id];
    let control;
    if (element.type in TEXT_INPUTS) control = textInput(element, label, key, state);
    else if (element.type === 'static_select') control = staticSelect(element, label, state?.selected_option ?? element.initial_option, key);
    else if (element.type === 'external_select') control = externalSelect(element, label, state?.selected_option ?? element.initial_option, key);
    else if (element.type === 'radio_buttons' || element.type === 'checkboxes') control = choiceGroup(element, label, state, key);
    else control = unsupported(`A ${element.type ?? 'input'}`);
    const error = context.state?.errors?.[label];
    return h('div', { className: `bk-input-block${error ? ' has-error' : ''}`, dataset: { field: key, required: block.optional === true ? 'no' : 'yes' } }, [
      h('label', { className: 'input-label' }, [label, block.optional ? h('span', { className: 'optional', textContent: ' (optional)' }) : null]),
      control,
      block.hint ? richText(block.hint, context.names, 'div', 'hint') : null,
      h('div', { className: 'field-error', role: 'alert', textContent: error ?? '' }),
    ]);
  }

  for (const block of Array.isArray(blocks) ? blocks : []) {
    switch (block?.type) {
      case 'section': {
        const body = h('div', { className: 'section-body' }, [
          block.text ? richText(block.text, context.names) : null,
          Array.isArray(block.fields)
            ? h('div', { className: 'fields' }, block.fields.map((field) => richText(field, context.names, 'div', 'field')))
            : null,
        ]);
        const accessory = block.accessory ? h('div', { className: 'accessory' }, interactive(block.accessory, textOf(block.text))) : null;
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
        container.append(h('div', { className: 'bk-context' }, (block.elements ?? []).map((element) =>
          element.type === 'image' ? imagePlaceholder(element) : richText(element, context.names, 'span', 'context-text'))));
        break;
      case 'actions':
        container.append(h('div', { className: 'bk-actions' }, (block.elements ?? []).map((element) =>
          interactive(element, textOf(element.placeholder)))));
        break;
      case 'image':
        container.append(h('div', { className: 'bk-image' }, [block.title ? richText(block.title, context.names) : null, imagePlaceholder(block)]));
        break;
      case 'input':
        container.append(inputBlock(block));
        break;
      case 'markdown':
        container.append(richText({ type: 'mrkdwn', text: block.text }, context.names));
        break;
      default:
        container.append(unsupported(`A ${block?.type ?? 'block'} block`));
    }
  }
  return container;
}
