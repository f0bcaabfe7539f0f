// Slack's mrkdwn to HTML, for the playground page and its tests. Everything the app sent is
// HTML-escaped before any markup is added, so message text can never inject HTML.

const HTML_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Emoji the app uses or is likely to, by Slack short name; others stay as `:name:`. */
const EMOJI = {
  white_check_mark: '✅', heavy_check_mark: '✔️', warning: '⚠️', x: '❌', no_entry: '⛔', no_entry_sign: '🚫',
  octagonal_sign: '🛑', stop_sign: '🛑', rotating_light: '🚨', fire: '🔥', boom: '💥', zap: '⚡', wave: '👋',
  hourglass: '⌛', hourglass_flowing_sand: '⏳', stopwatch: '⏱️', alarm_clock: '⏰', clock1: '🕐', bulb: '💡',
  information_source: 'ℹ️', lock: '🔒', unlock: '🔓', key: '🔑', memo: '📝', ticket: '🎫', pushpin: '📌',
  link: '🔗', mag: '🔍', tada: '🎉', rocket: '🚀', red_circle: '🔴', large_green_circle: '🟢',
  large_yellow_circle: '🟡', large_blue_circle: '🔵', white_circle: '⚪', black_circle: '⚫', eyes: '👀',
  thumbsup: '👍', '+1': '👍', thumbsdown: '👎', bell: '🔔', construction: '🚧', skull: '💀', test_tube: '🧪',
  gear: '⚙️', clipboard: '📋', calendar: '📅', chart_with_upwards_trend: '📈', busts_in_silhouette: '👥',
  bust_in_silhouette: '👤', arrows_counterclockwise: '🔄', repeat: '🔁', question: '❓', exclamation: '❗',
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

/** One `<…>` control sequence (already HTML-escaped inside): links, mentions, dates. */
function controlSequence(inner, names) {
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? '' : inner.slice(bar + 1);
  if (target.startsWith('@')) {
    const id = target.slice(1);
    return `<span class="mention">@${label || (names[id] !== undefined ? escapeHtml(names[id]) : id)}</span>`;
  }
  if (target.startsWith('#')) return `<span class="mention">#${label || target.slice(1)}</span>`;
  if (target.startsWith('!date^')) {
    const date = new Date(Number(target.split('^')[1]) * 1000);
    return Number.isNaN(date.getTime()) ? label : `<time datetime="${date.toISOString()}">${label}</time>`;
  }
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
 * <@user> and <#channel> mentions, <!date^…|fallback> as its fallback, :emoji:, newlines.
 * `names` maps user ids to the names shown for mentions.
 */
export function renderMrkdwn(text, names = {}) {
  const stash = [];
  const keep = (html) => `\u0000${stash.push(html) - 1}\u0000`;
  let html = escapeHtml(String(text ?? '').replace(/\u0000/g, ''));
  html = html.replace(/```\n?([\s\S]*?)```/g, (_, code) => keep(`<pre class="code-block">${slackEntities(code)}</pre>`));
  html = html.replace(/`([^`\n]+)`/g, (_, code) => keep(`<code>${slackEntities(code)}</code>`));
  html = html.replace(/&lt;([^\n]*?)&gt;/g, (_, inner) => keep(controlSequence(slackEntities(inner), names)));
  // A quote is a raw `>` at the start of a line; the app writes a literal one as `&gt;`.
  html = html.replace(/^&gt; ?(.*)$/gm, '<blockquote>$1</blockquote>');
  html = slackEntities(html);
  html = html.replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])/g, '$1<strong>$2</strong>');
  html = html.replace(/(^|[^\w_])_(?=\S)([^_\n]*?\S)_(?![\w_])/g, '$1<em>$2</em>');
  html = html.replace(/(^|[^\w~])~(?=\S)([^~\n]*?\S)~(?![\w~])/g, '$1<del>$2</del>');
  html = emoji(html).replace(/\n/g, '<br>').replace(/<\/blockquote><br>/g, '</blockquote>');
  return html.replace(/\u0000(\d+)\u0000/g, (_, index) => stash[Number(index)]);
}

/** Renders a plain_text object's text: escaped, with :emoji: and line breaks. */
export function renderPlainText(text) {
  return emoji(escapeHtml(String(text ?? ''))).replace(/\n/g, '<br>');
}
