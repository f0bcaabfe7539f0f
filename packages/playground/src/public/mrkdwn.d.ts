/** Escapes the five characters that matter in HTML text and attribute values. */
export function escapeHtml(text: string): string;
/** How dates are shown: the reader's locale, zone and clock unless pinned. */
export interface DateOptions {
  locale?: string;
  timeZone?: string;
  now?: Date;
}
/** Slack mrkdwn as HTML; all of the input is HTML-escaped first. `names` maps user and channel ids to names for mentions. */
export function renderMrkdwn(text: string, names?: Record<string, string>, dates?: DateOptions): string;
/** A time of day as the page shows message times and date tokens' {time}. */
export function formatTime(date: Date, dates?: DateOptions): string;
/** A plain_text object's text as HTML: escaped, with :emoji: and line breaks. */
export function renderPlainText(text: string): string;
