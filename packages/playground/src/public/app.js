// The playground page: polls what the chosen person sees and acts as that person through the
// playground's JSON API. No framework: the state is small and each part is redrawn when it changes.

import { h, renderBlocks, richText } from './blocks.js';
import { formatTime as timeOfDay } from './mrkdwn.js';

const POLL_MS = 700;
/** Who the person last acted as, and where: the page opens there again when its address names neither (coming back from the login page). */
const LAST_VIEW_KEY = 'faultline-playground-view';
const $ = (id) => document.getElementById(id);

const page = {
  directory: null,
  person: '',
  /** A channel id, 'home' for the app's Home tab, or 'dm' for the person's direct messages with the app. */
  place: '',
  etag: null,
  data: null,
  /** Signatures of what is drawn, so a poll that changed nothing redraws nothing. */
  drawn: { timeline: '', modal: '', home: '' },
  /** Text typed into the open modal, not yet sent: `${blockId}/${actionId}` → { blockId, actionId, value }. */
  edits: new Map(),
  editsViewId: null,
  expandedThreads: new Set(),
  /** A message to scroll to once its channel is drawn (after following a permalink). */
  focusTs: null,
  history: [],
  historyIndex: 0,
  /** The message whose "More actions" menu is open, by ts. */
  menuFor: null,
};

/** Who and where mentions name: people and channels by id, as Slack shows `<@U…>` and `<#C…>`. */
const names = () =>
  Object.fromEntries([
    ...page.directory.people.map((person) => [person.id, person.name]),
    ...page.directory.channels.map((channel) => [channel.id, channel.name]),
  ]);
const isHome = () => page.place === 'home';
const isDirect = () => page.place === 'dm';

// Direct messages: the newest one each person has seen, kept in the browser, so the sidebar counts the rest.

const seenKey = (person) => `faultline-playground-dm-seen:${person}`;

/** Whether Slack timestamp `a` is later than `b`: seconds, then microseconds (too many digits for one float). */
function tsAfter(a, b) {
  const [aSeconds = 0, aMicros = 0] = a.split('.').map(Number);
  const [bSeconds = 0, bMicros = 0] = b.split('.').map(Number);
  return aSeconds - bSeconds > 0 || (aSeconds === bSeconds && aMicros > bMicros);
}

function drawUnread() {
  const direct = page.data?.direct ?? [];
  if (isDirect() && direct.length > 0) localStorage.setItem(seenKey(page.person), direct.at(-1));
  const seen = localStorage.getItem(seenKey(page.person));
  const unread = direct.filter((ts) => seen === null || tsAfter(ts, seen)).length;
  const badge = $('dm-unread');
  badge.textContent = String(unread);
  badge.hidden = unread === 0;
  $('dm-link').classList.toggle('has-unread', unread > 0);
  $('dm-link').setAttribute(
    'aria-label',
    unread > 0 ? `Faultline, direct messages, ${unread} unread` : 'Faultline, direct messages',
  );
  // A narrow window shows the sidebar behind its menu button, which says there is something unread.
  $('menu-unread').hidden = unread === 0;
  $('sidebar-open').setAttribute('aria-label', unread > 0 ? `Conversations, ${unread} unread` : 'Conversations');
}

/** A narrow window shows the sidebar or the conversation, not both; a wide one shows both anyway. */
function showSidebar(shown) {
  document.querySelector('.app').classList.toggle('sidebar-open', shown);
  $('sidebar-open').setAttribute('aria-expanded', String(shown));
}

/** Opens a conversation from the sidebar, on the whole of a narrow window. */
function openPlace(place) {
  showSidebar(false);
  go(page.person, place);
}

async function api(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ person: page.person, ...body }),
  });
  const result = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(result.error ?? `The playground answered HTTP ${response.status}`);
  return result;
}

let toastTimer;
function toast(message) {
  const element = $('toast');
  element.textContent = message;
  element.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    element.hidden = true;
  }, 6000);
}

/**
 * Posts an action after those before it (a pick in a select reaches the app before the submit
 * that follows it), as the person acting when it was asked for, shows its failure, and polls at
 * once so its effect shows without waiting. Resolves with the answer, or undefined on failure.
 */
let actions = Promise.resolve();
function act(path, body) {
  const asked = { person: page.person, ...body };
  const run = actions.then(async () => {
    try {
      return await api(path, asked);
    } catch (error) {
      toast(error.message);
      return undefined;
    } finally {
      void refresh();
    }
  });
  actions = run;
  return run;
}

// Confirm dialogs, as Slack shows them before a button with `confirm` acts.

function confirmDialog(confirm) {
  const dialog = $('confirm');
  $('confirm-title').textContent = confirm.title?.text ?? 'Are you sure?';
  $('confirm-text').replaceChildren(richText(confirm.text, names()));
  const ok = $('confirm-ok');
  ok.textContent = confirm.confirm?.text ?? 'Yes';
  ok.className = `bk-button ${confirm.style === 'danger' ? 'danger' : 'primary'}`;
  $('confirm-deny').textContent = confirm.deny?.text ?? 'Cancel';
  return new Promise((resolve) => {
    const finish = (answer) => {
      ok.onclick = null;
      $('confirm-deny').onclick = null;
      dialog.oncancel = null;
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    ok.onclick = () => finish(true);
    $('confirm-deny').onclick = () => finish(false);
    dialog.oncancel = () => finish(false);
    dialog.showModal();
  });
}

function surfaceContext(surface, state) {
  const fields = () => (surface.kind === 'modal' ? [...page.edits.values()] : []);
  return {
    names: names(),
    channels: page.directory.channels,
    people: page.directory.people,
    state,
    edits: surface.kind === 'modal' ? page.edits : undefined,
    async onClick(element, index, node) {
      if (element.confirm && !(await confirmDialog(element.confirm))) return;
      if (typeof element.url === 'string' && /^https?:\/\//i.test(element.url))
        window.open(element.url, '_blank', 'noopener,noreferrer');
      node.disabled = true;
      // Slack sends what is typed in a modal with every click in it, as it does with a submission.
      await act('/api/click', {
        surface,
        index,
        actionId: element.action_id,
        confirmed: Boolean(element.confirm),
        fields: fields(),
      });
      node.disabled = false;
    },
    // Slack sends what is typed in a modal with every choice in it too: an update keeps it by id.
    onChoose(label, option) {
      void act('/api/choose', { surface, label, option, fields: fields() });
    },
    onUnchoose(label, option) {
      void act('/api/choose', { surface, label, option, remove: true, fields: fields() });
    },
    async onSearch(label, query) {
      try {
        return (await api('/api/modal/search', { viewId: surface.viewId, label, query })).options;
      } catch (error) {
        toast(error.message);
        return [];
      }
    },
  };
}

// Messages

/** A message's time, in the reader's zone like the date tokens in cards. */
function formatTime(ts) {
  return timeOfDay(new Date(Number(ts.split('.')[0]) * 1000));
}

function messageElement(message, parentTs) {
  const surface = { kind: 'message', channel: page.place, ts: message.ts, ...(parentTs ? { threadTs: parentTs } : {}) };
  const content =
    message.blocks.length > 0
      ? renderBlocks(message.blocks, surfaceContext(surface))
      : richText({ type: 'mrkdwn', text: message.text }, names());
  const replies = message.replies ?? [];
  const expanded = page.expandedThreads.has(message.ts);
  return h('article', { className: `message${message.ephemeral ? ' ephemeral' : ''}`, dataset: { ts: message.ts } }, [
    h('div', { className: 'avatar', 'aria-hidden': 'true', textContent: 'F' }),
    messageMenu(message),
    h('div', { className: 'message-body' }, [
      h('div', { className: 'message-meta' }, [
        h('span', { className: 'author', textContent: 'Faultline' }),
        h('span', { className: 'badge', textContent: 'APP' }),
        h('time', { className: 'time', textContent: formatTime(message.ts) }),
      ]),
      content,
      fileCards(message.files),
      message.ephemeral ? h('div', { className: 'ephemeral-note', textContent: 'Only visible to you' }) : null,
      replies.length > 0
        ? h('button', {
            type: 'button',
            className: 'thread-toggle',
            textContent: expanded
              ? 'Hide replies'
              : `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'} · last at ${formatTime(replies.at(-1).ts)}`,
            onclick: () => {
              if (expanded) page.expandedThreads.delete(message.ts);
              else page.expandedThreads.add(message.ts);
              redrawTimeline();
            },
          })
        : null,
      expanded
        ? h(
            'div',
            { className: 'thread' },
            replies.map((reply) => messageElement(reply, message.ts)),
          )
        : null,
    ]),
  ]);
}

/** Redraws the timeline now, as it is, after something only the page changed. */
function redrawTimeline() {
  page.drawn.timeline = '';
  draw();
}

/** Slack's "More actions" on a message: the app's message shortcuts. Ephemeral messages have none. */
function messageMenu(message) {
  const shortcuts = page.directory.shortcuts ?? [];
  if (message.ephemeral || isDirect() || shortcuts.length === 0) return null;
  const open = page.menuFor === message.ts;
  return h('div', { className: 'message-tools' }, [
    h('button', {
      type: 'button',
      className: 'message-actions',
      textContent: '⋮',
      title: 'More actions',
      'aria-label': 'More actions',
      'aria-haspopup': 'menu',
      'aria-expanded': String(open),
      onclick: () => {
        page.menuFor = open ? null : message.ts;
        redrawTimeline();
      },
    }),
    open
      ? h(
          'div',
          { className: 'message-menu', role: 'menu', 'aria-label': 'More actions' },
          shortcuts.map((shortcut) =>
            h('button', {
              type: 'button',
              role: 'menuitem',
              className: 'menu-item',
              textContent: shortcut.name,
              onclick: () => {
                page.menuFor = null;
                redrawTimeline();
                void act('/api/shortcut', { channel: page.place, ts: message.ts, callbackId: shortcut.callbackId });
              },
            }),
          ),
        )
      : null,
  ]);
}

/** Files shared with a message, as Slack shows them: a card with the name that opens the file. */
function fileCards(files = []) {
  if (files.length === 0) return null;
  return h(
    'div',
    { className: 'files' },
    files.map((file) =>
      h('button', { type: 'button', className: 'file-card', onclick: () => void openFile(file) }, [
        h('span', { className: 'file-name', textContent: file.name }),
        h('span', { className: 'file-title', textContent: file.title }),
      ]),
    ),
  );
}

/** Opens a shared file on its text (a Markdown report reads as its Markdown). */
async function openFile(file) {
  try {
    const response = await fetch(`/api/file?id=${encodeURIComponent(file.id)}`, { cache: 'no-store' });
    const opened = await response.json();
    if (!response.ok) throw new Error(opened.error ?? `The playground answered HTTP ${response.status}`);
    $('file-title').textContent = opened.title;
    $('file-name').textContent = opened.name;
    $('file-text').textContent = opened.text;
    $('file-viewer').showModal();
  } catch (error) {
    toast(error.message);
  }
}

function emptyChannel() {
  const command = page.directory.command;
  if (isDirect())
    return h('div', { className: 'empty-state' }, [
      h('h2', { textContent: 'No direct messages yet' }),
      h('p', {
        textContent:
          'Faultline writes to you here: a login done on the secure page, "Still watching?" on a long attack, a halt it could not verify, approvals and logins about to expire.',
      }),
    ]);
  return h('div', { className: 'empty-state' }, [
    h('h2', { textContent: 'Nothing here yet' }),
    h('p', {}, [
      'Type ',
      h('code', { textContent: `${command} help` }),
      ' below to see what Faultline can do, or ',
      h('code', { textContent: `${command} login` }),
      ' to log in to the platform simulator.',
    ]),
  ]);
}

function drawTimeline() {
  const timeline = $('timeline');
  const signature = JSON.stringify([page.place, page.data.timeline]);
  if (signature === page.drawn.timeline) return;
  const atBottom =
    timeline.scrollHeight - timeline.scrollTop - timeline.clientHeight < 60 || page.drawn.timeline === '';
  page.drawn.timeline = signature;
  const messages = page.data.timeline;
  timeline.replaceChildren(
    ...(messages.length === 0 ? [emptyChannel()] : messages.map((message) => messageElement(message))),
  );
  const focused = page.focusTs ? timeline.querySelector(`[data-ts="${CSS.escape(page.focusTs)}"]`) : null;
  if (focused) {
    page.focusTs = null;
    focused.scrollIntoView({ block: 'center' });
    focused.classList.add('highlight');
  } else if (atBottom) {
    timeline.scrollTop = timeline.scrollHeight;
  }
}

/** Slack permalinks into this workspace's channels, e.g. …/archives/C0GENERAL/p1700000000123456?thread_ts=… */
const PERMALINK = /^https:\/\/[^/]+\.slack\.com\/archives\/([A-Z0-9]+)\/p(\d+)(\d{6})(?:\?thread_ts=(\d+\.\d+))?/;

/** Follows a permalink to a message of the playground's own channels in the page instead of to slack.com. */
function followPermalink(event) {
  const link = event.target.closest?.('a[href]');
  const match = link ? PERMALINK.exec(link.href) : null;
  if (!match || !page.directory.channels.some((channel) => channel.id === match[1])) return;
  event.preventDefault();
  const [, channel, seconds, micros, threadTs] = match;
  if (threadTs) page.expandedThreads.add(threadTs);
  page.focusTs = `${seconds}.${micros}`;
  go(page.person, channel);
}

function drawHome() {
  const home = $('home');
  const signature = JSON.stringify(page.data.home);
  if (signature === page.drawn.home) return;
  page.drawn.home = signature;
  home.replaceChildren(
    page.data.home === null
      ? h('div', { className: 'empty-state' }, [
          h('h2', { textContent: 'No Home tab yet' }),
          h('p', { textContent: 'Faultline has not published a Home tab for you.' }),
        ])
      : renderBlocks(page.data.home.blocks, surfaceContext({ kind: 'home' })),
  );
}

// The modal

/** Required inputs left empty, marked as Slack marks them; true when the form may be sent. */
function checkRequired(form) {
  let complete = true;
  for (const block of form.querySelectorAll('.bk-input-block')) {
    const control = block.querySelector('textarea, input.bk-input, select');
    let empty;
    if (control?.matches('textarea, input.bk-input, select')) empty = control.value.trim() === '';
    else empty = block.querySelector('input:checked') === null;
    let problem = '';
    if (empty && block.dataset.required === 'yes') problem = 'Please complete this required field.';
    else if (!empty && control?.minLength > 0 && control.value.length < control.minLength)
      problem = `Please enter at least ${control.minLength} characters.`;
    block.querySelector('.field-error').textContent = problem;
    block.classList.toggle('has-error', problem !== '');
    if (problem) complete = false;
  }
  if (!complete) form.querySelector('.has-error')?.scrollIntoView({ block: 'center' });
  return complete;
}

function drawModal() {
  const layer = $('modal-layer');
  const modal = page.data.modal;
  if (modal?.viewId !== page.editsViewId) {
    page.edits.clear();
    page.editsViewId = modal?.viewId ?? null;
  }
  const signature = JSON.stringify(modal);
  if (signature === page.drawn.modal) return;
  const previous = page.drawn.modal === '' ? null : JSON.parse(page.drawn.modal);
  page.drawn.modal = signature;
  if (modal === null) {
    layer.hidden = true;
    layer.replaceChildren();
    return;
  }
  const focused = document.activeElement?.dataset?.key;
  const selection =
    focused && 'selectionStart' in document.activeElement
      ? [document.activeElement.selectionStart, document.activeElement.selectionEnd]
      : null;
  const scroll = layer.querySelector('.modal-body')?.scrollTop ?? 0;

  const surface = { kind: 'modal', viewId: modal.viewId };
  const body = h('div', { className: 'modal-body' }, renderBlocks(modal.blocks, surfaceContext(surface, modal)));
  const close = () => act('/api/modal/close', { viewId: modal.viewId });
  const submit = async (event) => {
    event.preventDefault();
    if (!checkRequired(body)) return;
    const button = event.submitter;
    if (button) button.disabled = true;
    await act('/api/modal/submit', { viewId: modal.viewId, fields: [...page.edits.values()] });
    if (button) button.disabled = false;
  };
  const form = h(
    'form',
    {
      className: 'modal',
      role: 'dialog',
      'aria-modal': 'true',
      'aria-label': modal.title,
      noValidate: true,
      onsubmit: submit,
    },
    [
      h('header', { className: 'modal-header' }, [
        h('h2', { textContent: modal.title }),
        h('button', { type: 'button', className: 'modal-x', 'aria-label': 'Close', textContent: '×', onclick: close }),
      ]),
      body,
      h('footer', { className: 'modal-footer' }, [
        h('button', { type: 'button', className: 'bk-button default', textContent: modal.close, onclick: close }),
        modal.submit !== null
          ? h('button', { type: 'submit', className: 'bk-button primary', textContent: modal.submit })
          : null,
      ]),
    ],
  );
  layer.replaceChildren(form);
  layer.hidden = false;
  // An update to the same view may bring other inputs: typing into ones now gone must not be sent.
  const keys = new Set([...form.querySelectorAll('.bk-input-block')].map((block) => block.dataset.field));
  for (const key of page.edits.keys()) if (!keys.has(key)) page.edits.delete(key);
  // Redrawing the same view keeps the person's place: scroll position, focus and caret.
  body.scrollTop = scroll;
  const refocus = focused ? form.querySelector(`[data-key="${CSS.escape(focused)}"]`) : null;
  if (refocus) {
    refocus.focus({ preventScroll: true });
    if (selection && typeof refocus.setSelectionRange === 'function') refocus.setSelectionRange(...selection);
  } else if (previous?.viewId !== modal.viewId) {
    form.querySelector('input, textarea, select')?.focus();
  }
  // New field errors may sit below the fold of a long form; show the first one.
  if (Object.keys(modal.errors).length > 0 && JSON.stringify(modal.errors) !== JSON.stringify(previous?.errors ?? {})) {
    form.querySelector('.has-error')?.scrollIntoView({ block: 'center' });
  }
}

// Navigation

function drawNavigation() {
  $('person').replaceChildren(
    ...page.directory.people.map((person) =>
      h('option', { value: person.id, textContent: person.name, selected: person.id === page.person }),
    ),
  );
  $('channels').replaceChildren(
    ...page.directory.channels.map((channel) =>
      h(
        'li',
        {},
        h('button', {
          type: 'button',
          className: `nav-item${channel.id === page.place ? ' active' : ''}`,
          textContent: `# ${channel.name}`,
          onclick: () => openPlace(channel.id),
        }),
      ),
    ),
  );
  $('home-link').classList.toggle('active', isHome());
  $('dm-link').classList.toggle('active', isDirect());
  const channel = page.directory.channels.find((candidate) => candidate.id === page.place);
  $('title').textContent = isHome() || isDirect() ? 'Faultline' : `# ${channel?.name ?? page.place}`;
  $('subtitle').textContent = isHome() ? 'Home' : isDirect() ? 'Direct messages' : '';
  $('timeline').hidden = isHome();
  // Commands are typed in a channel; the app answers them there.
  $('composer').hidden = isHome() || isDirect();
  $('home').hidden = !isHome();
  $('composer-input').placeholder = `${page.directory.command} help`;
}

function drawHints() {
  const hints = page.directory.hints;
  if (!hints) return;
  const section = $('hints');
  section.replaceChildren(
    h('div', { className: 'nav-heading', textContent: 'Demo logins' }),
    h('p', {}, [
      'Password ',
      h('code', { textContent: hints.password }),
      ', MFA code ',
      h('code', { textContent: hints.mfaCode }),
    ]),
    h(
      'ul',
      {},
      hints.logins.map((login) =>
        h('li', {}, [h('code', { textContent: login.email }), h('span', { textContent: login.summary })]),
      ),
    ),
  );
  section.hidden = false;
}

// The Simulator panel: the platform's monitors and alerts, changed through the simulator's control surface.

const SIMULATOR_POLL_MS = 2000;
const unhealthy = new Set(['Alert', 'firing', 'ignores halts']);
const haltChoices = ['takes halts', 'ignores halts'];
let simulatorDrawn = '';
/** Whether the targets' list is open; kept across redraws. */
let targetsOpen = false;

function signalRow(label, state, choices, onPick) {
  const select = h(
    'select',
    { 'aria-label': label, onchange: (event) => onPick(event.currentTarget.value) },
    choices.map((choice) => h('option', { value: choice, textContent: choice, selected: choice === state })),
  );
  if (!choices.includes(state))
    select.prepend(h('option', { value: state, textContent: state, selected: true, disabled: true }));
  return h('label', { className: `signal${unhealthy.has(state) ? ' unhealthy' : ''}`, title: label }, [
    h('span', { textContent: label }),
    select,
  ]);
}

function drawSimulator(view) {
  const signature = JSON.stringify(view);
  // Never redraw under a select the person is using.
  if (
    signature === simulatorDrawn ||
    ($('simulator').contains(document.activeElement) && document.activeElement.tagName === 'SELECT')
  )
    return;
  simulatorDrawn = signature;
  const change = (path, body) => act(path, body).then((answer) => answer && drawSimulator(answer));
  $('simulator-signals').replaceChildren(
    h('div', { className: 'simulator-group', textContent: 'monitoringA monitors (--guard a:<id>)' }),
    ...view.monitors.map((monitor) =>
      signalRow(`${monitor.name} (${monitor.id})`, monitor.state, view.monitorChoices, (state) =>
        change('/api/simulator/monitor', { id: monitor.id, state }),
      ),
    ),
    h('div', { className: 'simulator-group', textContent: 'monitoringB alerts (--guard b:<name>)' }),
    ...view.alerts.map((alert) =>
      signalRow(alert.name, alert.state, view.alertChoices, (state) =>
        change('/api/simulator/alert', { name: alert.name, state }),
      ),
    ),
    h(
      'details',
      {
        className: 'simulator-targets',
        open: targetsOpen,
        ontoggle: (event) => {
          targetsOpen = event.currentTarget.open;
        },
      },
      [
        h('summary', { className: 'simulator-group', textContent: 'Targets (halts)' }),
        h('p', {
          className: 'simulator-note',
          textContent:
            'A target that ignores halts keeps running when an attack on it is halted: a minute on, the card says "Halt not verified" and offers Halt again.',
        }),
        ...view.targets.map((target) =>
          signalRow(
            `${target.id} (${target.team})`,
            target.ignoresHalts ? 'ignores halts' : 'takes halts',
            haltChoices,
            (state) => change('/api/simulator/target', { id: target.id, ignoresHalts: state === 'ignores halts' }),
          ),
        ),
      ],
    ),
  );
  $('simulator').hidden = false;
}

async function pollSimulator() {
  try {
    const response = await fetch('/api/simulator', { cache: 'no-store' });
    if (response.ok) drawSimulator(await response.json());
  } catch {
    // The connection banner says it already.
  }
  setTimeout(pollSimulator, SIMULATOR_POLL_MS);
}

// The Workflows panel: the app's custom steps, run as the person acting, and how each run ended.

const WORKFLOWS_POLL_MS = 1000;
let workflowsDrawn = '';

function stepForm() {
  return page.directory.steps.find((step) => step.callbackId === $('workflow-step').value);
}

function drawWorkflowInputs() {
  const step = stepForm();
  const channelOptions = () =>
    page.directory.channels.map((channel) =>
      h('option', { value: channel.id, textContent: `#${channel.name}`, selected: channel.id === page.place }),
    );
  $('workflow-inputs').replaceChildren(
    ...(step?.inputs ?? []).map((input) => {
      const label = `${input.title}${input.required ? '' : ' (optional)'}`;
      if (input.type === 'boolean')
        return h('label', { className: 'workflow-field check', title: input.description }, [
          h('input', { type: 'checkbox', name: input.name, 'aria-label': input.title }),
          h('span', { textContent: label }),
        ]);
      const field =
        input.type === 'slack#/types/channel_id'
          ? h('select', { name: input.name, 'aria-label': input.title }, channelOptions())
          : h('input', { type: 'text', name: input.name, 'aria-label': input.title, required: input.required });
      return h('label', { className: 'workflow-field', title: input.description }, [
        h('span', { textContent: label }),
        field,
      ]);
    }),
  );
}

function runText(run) {
  const who = names()[run.person] ?? run.person;
  if (run.state === 'running') return `${run.title} as ${who}: running…`;
  if (run.state === 'failed') return `${run.title} as ${who} failed: ${run.error}`;
  const outputs = Object.entries(run.outputs ?? {})
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') || 'none' : value}`)
    .join(' · ');
  return `${run.title} as ${who} completed${outputs ? ` (${outputs})` : ''}`;
}

function drawWorkflowRuns(runs) {
  const signature = JSON.stringify(runs);
  if (signature === workflowsDrawn) return;
  workflowsDrawn = signature;
  $('workflow-runs').replaceChildren(
    ...runs.map((run) => h('li', { className: run.state, textContent: runText(run) })),
  );
}

function setupWorkflows() {
  if (!page.directory.steps?.length) return;
  $('workflow-step').replaceChildren(
    ...page.directory.steps.map((step) => h('option', { value: step.callbackId, textContent: step.title })),
  );
  $('workflow-step').addEventListener('change', drawWorkflowInputs);
  $('workflow-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const inputs = {};
    for (const field of $('workflow-inputs').querySelectorAll('input, select'))
      inputs[field.name] = field.type === 'checkbox' ? field.checked : field.value;
    const ran = await act('/api/workflows/run', { step: $('workflow-step').value, inputs });
    if (ran !== undefined) void pollWorkflows({ once: true });
  });
  drawWorkflowInputs();
  $('workflows').hidden = false;
  void pollWorkflows();
}

async function pollWorkflows({ once = false } = {}) {
  try {
    const response = await fetch('/api/workflows', { cache: 'no-store' });
    if (response.ok) drawWorkflowRuns((await response.json()).runs);
  } catch {
    // The connection banner says it already.
  }
  if (!once) setTimeout(pollWorkflows, WORKFLOWS_POLL_MS);
}

// The Ask Slackbot box: Faultline's tools as Slackbot lists them, called as the person acting.

let slackbotTools = [];

function drawSlackbotArgs() {
  const tool = slackbotTools.find((candidate) => candidate.name === $('slackbot-tool').value);
  $('slackbot-description').textContent = tool?.description ?? '';
  $('slackbot-args').replaceChildren(
    ...(tool?.args ?? []).map((arg) => {
      const label = `${arg.name}${arg.required ? '' : ' (optional)'}`;
      if (arg.type === 'boolean')
        return h('label', { className: 'workflow-field check', title: arg.description }, [
          h('input', { type: 'checkbox', name: arg.name, 'aria-label': arg.name }),
          h('span', { textContent: label }),
        ]);
      const field = arg.choices.length
        ? h('select', { name: arg.name, 'aria-label': arg.name }, [
            ...(arg.required ? [] : [h('option', { value: '', textContent: '' })]),
            ...arg.choices.map((choice) => h('option', { value: choice, textContent: choice })),
          ])
        : h('input', {
            type: 'text',
            name: arg.name,
            'aria-label': arg.name,
            required: arg.required,
            // A channel argument starts as the channel open, as Slackbot knows where it is asked.
            value: arg.name === 'channel' && page.place.startsWith('C') ? page.place : '',
          });
      return h('label', { className: 'workflow-field', title: arg.description }, [
        h('span', { textContent: label }),
        field,
      ]);
    }),
  );
}

async function setupSlackbot() {
  let response;
  try {
    response = await fetch(`/api/slackbot/tools?person=${encodeURIComponent(page.person)}`, { cache: 'no-store' });
  } catch {
    return;
  }
  if (!response.ok) return;
  slackbotTools = (await response.json()).tools;
  $('slackbot-tool').replaceChildren(
    ...slackbotTools.map((tool) => h('option', { value: tool.name, textContent: tool.name })),
  );
  $('slackbot-tool').addEventListener('change', drawSlackbotArgs);
  $('slackbot-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const args = {};
    for (const field of $('slackbot-args').querySelectorAll('input, select'))
      args[field.name] = field.type === 'checkbox' ? field.checked : field.value;
    const answer = await act('/api/slackbot/call', { tool: $('slackbot-tool').value, args });
    if (answer === undefined) return;
    $('slackbot-answer').textContent = answer.text;
    $('slackbot-answer').classList.toggle('failed', answer.isError);
    $('slackbot-answer').hidden = false;
  });
  drawSlackbotArgs();
  $('slackbot').hidden = false;
}

function go(person, place) {
  page.person = person;
  page.place = place;
  page.etag = null;
  page.drawn = { timeline: '', modal: '', home: '' };
  history.replaceState(null, '', `#${person}/${place}`);
  localStorage.setItem(LAST_VIEW_KEY, `${person}/${place}`);
  drawNavigation();
  if (isHome()) void act('/api/home/open', {});
  else void refresh();
}

function draw() {
  if (page.data === null) return;
  if (isHome()) drawHome();
  else drawTimeline();
  drawModal();
  drawUnread();
}

// Polling

let inFlight = null;
async function refresh() {
  // One request at a time; a refresh asked for meanwhile waits for it and then runs.
  while (inFlight) await inFlight;
  inFlight = (async () => {
    // Home shows no channel; the state still says which direct messages there are.
    const channel = isHome() ? page.directory.channels[0].id : page.place;
    const asked = { person: page.person, place: page.place };
    try {
      const response = await fetch(
        `/api/state?person=${encodeURIComponent(page.person)}&channel=${encodeURIComponent(channel)}`,
        {
          cache: 'no-store',
          headers: page.etag ? { 'if-none-match': page.etag } : {},
        },
      );
      $('connection').hidden = true;
      if (response.status === 304 || asked.person !== page.person || asked.place !== page.place) return;
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = await response.json();
      if (asked.person !== page.person || asked.place !== page.place) return;
      page.etag = response.headers.get('etag');
      page.data = data;
      draw();
    } catch {
      $('connection').hidden = false;
    }
  })();
  try {
    await inFlight;
  } finally {
    inFlight = null;
  }
}

async function pollForever() {
  await refresh();
  setTimeout(pollForever, POLL_MS);
}

// The composer

function setupComposer() {
  const input = $('composer-input');
  $('composer').addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (text === '') return;
    const sent = await act('/api/command', { channel: page.place, text });
    if (sent !== undefined) {
      page.history.push(text);
      page.historyIndex = page.history.length;
      input.value = '';
    }
  });
  input.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return;
    if (page.history.length === 0) return;
    event.preventDefault();
    page.historyIndex = Math.max(
      0,
      Math.min(page.history.length, page.historyIndex + (event.key === 'ArrowUp' ? -1 : 1)),
    );
    input.value = page.history[page.historyIndex] ?? '';
  });
}

async function start() {
  page.directory = await (await fetch('/api/directory', { cache: 'no-store' })).json();
  const [person, place] = (location.hash.slice(1) || localStorage.getItem(LAST_VIEW_KEY) || '').split('/');
  const people = page.directory.people.map((candidate) => candidate.id);
  const places = [...page.directory.channels.map((channel) => channel.id), 'home', 'dm'];
  $('person').addEventListener('change', (event) => go(event.currentTarget.value, page.place));
  $('home-link').addEventListener('click', () => openPlace('home'));
  $('dm-link').addEventListener('click', () => openPlace('dm'));
  $('sidebar-open').addEventListener('click', () => showSidebar(true));
  $('sidebar-close').addEventListener('click', () => showSidebar(false));
  document.addEventListener('click', followPermalink);
  // A message's menu closes on a click elsewhere or Escape, as Slack's does.
  document.addEventListener('click', (event) => {
    if (page.menuFor !== null && !event.target.closest?.('.message-tools')) {
      page.menuFor = null;
      redrawTimeline();
    }
  });
  $('file-close').addEventListener('click', () => $('file-viewer').close());
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && page.menuFor !== null) {
      page.menuFor = null;
      redrawTimeline();
      return;
    }
    if (event.key === 'Escape' && page.data?.modal && !$('confirm').open && !$('file-viewer').open)
      void act('/api/modal/close', { viewId: page.data.modal.viewId });
  });
  setupComposer();
  drawHints();
  if (page.directory.simulator) void pollSimulator();
  setupWorkflows();
  go(people.includes(person) ? person : people[0], places.includes(place) ? place : places[0]);
  $('composer-input').focus();
  void setupSlackbot();
  void pollForever();
}

void start();
