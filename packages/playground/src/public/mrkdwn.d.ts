/** Escapes the five characters that matter in HTML text and attribute values. */
export function escapeHtml(text: string): string;
/** Slack mrkdwn as HTML; all of the input is HTML-escaped first. `names` maps user ids to names for mentions. */
export function renderMrkdwn(text: string, names?: Record<string, string>): string;
/** A plain_text object's text as HTML: escaped, with :emoji: and line breaks. */
export function renderPlainText(text: string): string;
