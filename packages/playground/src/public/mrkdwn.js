// Slack's mrkdwn to HTML, for the playground page and its tests. Everything the app sent is
// HTML-escaped before any markup is added, so message text can never inject HTML.

const HTML_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Emoji the app uses or is likely to, by Slack short name; others stay as `:name:`. A test checks
 * that every short name in the bot's source is here.
 */
const EMOJI = {
  dart: '🎯',
  checkered_flag: '🏁',
  performing_arts: '🎭',
  broom: '🧹',
  grey_question: '❔',
  grey_exclamation: '❕',
  rewind: '⏪',
  fast_forward: '⏩',
  arrow_forward: '▶️',
  pause_button: '⏸️',
  double_vertical_bar: '⏸️',
  leftwards_arrow_with_hook: '↩️',
  heavy_plus_sign: '➕',
  microscope: '🔬',
  floppy_disk: '💾',
  hammer_and_wrench: '🛠️',
  white_check_mark: '✅',
  heavy_check_mark: '✔️',
  warning: '⚠️',
  x: '❌',
  no_entry: '⛔',
  no_entry_sign: '🚫',
  octagonal_sign: '🛑',
  stop_sign: '🛑',
  rotating_light: '🚨',
  fire: '🔥',
  boom: '💥',
  zap: '⚡',
  wave: '👋',
  zzz: '💤',
  hourglass: '⌛',
  hourglass_flowing_sand: '⏳',
  stopwatch: '⏱️',
  alarm_clock: '⏰',
  clock1: '🕐',
  bulb: '💡',
  information_source: 'ℹ️',
  lock: '🔒',
  unlock: '🔓',
  key: '🔑',
  office: '🏢',
  memo: '📝',
  ticket: '🎫',
  pushpin: '📌',
  link: '🔗',
  mag: '🔍',
  tada: '🎉',
  rocket: '🚀',
  red_circle: '🔴',
  large_green_circle: '🟢',
  large_yellow_circle: '🟡',
  large_blue_circle: '🔵',
  white_circle: '⚪',
  black_circle: '⚫',
  eyes: '👀',
  thumbsup: '👍',
  '+1': '👍',
  thumbsdown: '👎',
  bell: '🔔',
  construction: '🚧',
  skull: '💀',
  test_tube: '🧪',
  gear: '⚙️',
  clipboard: '📋',
  calendar: '📅',
  chart_with_upwards_trend: '📈',
  busts_in_silhouette: '👥',
  bust_in_silhouette: '👤',
  arrows_counterclockwise: '🔄',
  repeat: '🔁',
  question: '❓',
  exclamation: '❗',
  snowflake: '❄️',
  sunny: '☀️',
  shield: '🛡️',
  raised_hand: '✋',
};

const SAFE_URL = /^(https?:\/\/|mailto:)/i;

/** Escapes the five characters that matter in HTML text and attribute values. */
export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]);
}

/** Slack's own entities (`&amp;lt;` once escaped for HTML) back to the character they stand for. */
function slackEntities(html) {
  return html.replace(/&amp;(lt|gt|amp);/g, '&$1;');
}

function emoji(html) {
  return html.replace(/:([a-z0-9_+-]+):/g, (whole, name) => EMOJI[name] ?? whole);
}

/**
 * How the page shows dates: the reader's locale and time zone unless given (tests pin them), and
 * `now` for "today" and "ago".
 * @typedef {{ locale?: string, timeZone?: string, now?: Date }} DateOptions
 */

function dateParts(date, dates) {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: dates.timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(date);
  const part = (type) => parts.find((candidate) => candidate.type === type)?.value ?? '';
  return { year: part('year'), month: part('month'), day: part('day') };
}

/** Whole calendar days from `now` to `date` in the reader's zone: 0 today, -1 yesterday. */
function dayOffset(date, dates) {
  const day = (value) => {
    const { year, month, day: dayOfMonth } = dateParts(value, dates);
    return Date.UTC(Number(year), Number(month) - 1, Number(dayOfMonth)) / 86_400_000;
  };
  return day(date) - day(dates.now ?? new Date());
}

/** A time of day as the page shows every time, message times and date tokens alike. */
export function formatTime(date, dates = {}) {
  return date.toLocaleTimeString(dates.locale, { timeZone: dates.timeZone, hour: 'numeric', minute: '2-digit' });
}

function formatAgo(date, dates) {
  const seconds = Math.round((date.getTime() - (dates.now ?? new Date()).getTime()) / 1000);
  const units = [
    ['year', 31_536_000],
    ['month', 2_592_000],
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
    ['second', 1],
  ];
  const [unit, size] = units.find(([, length]) => Math.abs(seconds) >= length) ?? ['second', 1];
  return new Intl.RelativeTimeFormat(dates.locale, { numeric: 'auto' }).format(Math.trunc(seconds / size), unit);
}

/** One `{token}` of a date token's format, in the reader's zone, as Slack's clients draw it. */
function dateToken(token, date, dates) {
  const format = (options) => date.toLocaleDateString(dates.locale, { timeZone: dates.timeZone, ...options });
  const styles = {
    date: { year: 'numeric', month: 'long', day: 'numeric' },
    date_short: { year: 'numeric', month: 'short', day: 'numeric' },
    date_long: { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' },
  };
  const pretty = /^(date|date_short|date_long)_pretty$/.exec(token);
  if (pretty) {
    const offset = dayOffset(date, dates);
    if (Math.abs(offset) <= 1)
      return new Intl.RelativeTimeFormat(dates.locale, { numeric: 'auto' }).format(offset, 'day');
    return format(styles[pretty[1]]);
  }
  if (token in styles) return format(styles[token]);
  if (token === 'date_num') {
    const { year, month, day } = dateParts(date, dates);
    return `${year}-${month}-${day}`;
  }
  if (token === 'date_slash') return format({ year: 'numeric', month: '2-digit', day: '2-digit' });
  if (token === 'time') return formatTime(date, dates);
  if (token === 'time_secs')
    return date.toLocaleTimeString(dates.locale, {
      timeZone: dates.timeZone,
      hour: 'numeric',
      minute: '2-digit',
      second: '2-digit',
    });
  if (token === 'ago') return formatAgo(date, dates);
  return undefined;
}

/** `<!date^seconds^format[^link]|fallback>` in the reader's zone; the fallback for what it cannot read. */
function slackDate(target, label, dates) {
  const [, seconds, format = '', link] = target.split('^');
  const date = new Date(Number(seconds) * 1000);
  if (Number.isNaN(date.getTime())) return label;
  let unknown = false;
  const text = format.replace(/\{([a-z_]+)\}/g, (whole, token) => {
    const drawn = dateToken(token, date, dates);
    if (drawn === undefined) unknown = true;
    return drawn ?? whole;
  });
  const shown = unknown || format === '' ? label : escapeHtml(text);
  const time = `<time datetime="${date.toISOString()}" title="${label}">${shown}</time>`;
  return link && SAFE_URL.test(link) ? `<a href="${link}" target="_blank" rel="noopener noreferrer">${time}</a>` : time;
}

/** One `<…>` control sequence (already HTML-escaped inside): links, mentions, dates. */
function controlSequence(inner, names, dates) {
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? '' : inner.slice(bar + 1);
  // A person or channel mention shows the name, as Slack shows it, and its id only when unknown.
  if (target.startsWith('@') || target.startsWith('#')) {
    const id = target.slice(1);
    return `<span class="mention">${target[0]}${label || (names[id] !== undefined ? escapeHtml(names[id]) : id)}</span>`;
  }
  if (target.startsWith('!date^')) return slackDate(target, label, dates);
  if (target.startsWith('!subteam^')) return `<span class="mention">${label}</span>`;
  if (target.startsWith('!')) return `<span class="mention">@${target.slice(1).split('^')[0]}</span>`;
  if (SAFE_URL.test(target)) {
    return `<a href="${target}" target="_blank" rel="noopener noreferrer">${label || target}</a>`;
  }
  // A link of another scheme shows as words only; anything else was not meant as markup.
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return label || target;
  return `&lt;${inner}&gt;`;
}

/**
 * Renders mrkdwn: *bold*, _italic_, ~strike~, `code`, ```blocks```, > quotes, <url|links>,
 * <@user> and <#channel> mentions, <!date^…|fallback> in the reader's time zone, :emoji:,
 * newlines. `names` maps user and channel ids to the names shown for mentions; `dates` pins the locale, zone
 * and present moment (the reader's by default).
 * @param {DateOptions} [dates]
 */
export function renderMrkdwn(text, names = {}, dates = {}) {
  const stash = [];
  const keep = (html) => `\u0000${stash.push(html) - 1}\u0000`;
  let html = escapeHtml(String(text ?? '').replace(/\u0000/g, ''));
  html = html.replace(/```\n?([\s\S]*?)```/g, (_, code) =>
    keep(`<pre class="code-block">${slackEntities(code)}</pre>`),
  );
  html = html.replace(/`([^`\n]+)`/g, (_, code) => keep(`<code>${slackEntities(code)}</code>`));
  html = html.replace(/&lt;([^\n]*?)&gt;/g, (_, inner) => keep(controlSequence(slackEntities(inner), names, dates)));
  // A quote is a raw `>` at the start of a line; the app writes a literal one as `&gt;`.
  html = html.replace(/^&gt; ?(.*)$/gm, '<blockquote>$1</blockquote>');
  html = slackEntities(html);
  html = html.replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])/g, '$1<strong>$2</strong>');
  html = html.replace(/(^|[^\w_])_(?=\S)([^_\n]*?\S)_(?![\w_])/g, '$1<em>$2</em>');
  html = html.replace(/(^|[^\w~])~(?=\S)([^~\n]*?\S)~(?![\w~])/g, '$1<del>$2</del>');
  html = emoji(html)
    .replace(/\n/g, '<br>')
    .replace(/<\/blockquote><br>/g, '</blockquote>');
  return html.replace(/\u0000(\d+)\u0000/g, (_, index) => stash[Number(index)]);
}

/** Renders a plain_text object's text: escaped, with :emoji: and line breaks. */
export function renderPlainText(text) {
  return emoji(escapeHtml(String(text ?? ''))).replace(/\n/g, '<br>');
}
