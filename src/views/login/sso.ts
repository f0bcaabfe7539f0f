import type { SsoFailure } from '../../client/auth.ts';
import { context, escapeMrkdwn, section, plural } from '../blocks.ts';
import type { Message } from '../message.ts';

/** How many failures a reply lists; the platform keeps more. */
export const ssoFailuresShown = 15;

/** `sso failures [email]`: the newest first, each with when, who and why. */
export function ssoFailuresMessage(failures: SsoFailure[], email: string | undefined): Message {
  const whose = email ? ` of ${escapeMrkdwn(email)}` : '';
  if (failures.length === 0) {
    const text = `No recent single sign-on failures${whose}.`;
    return { text, blocks: [section(text)] };
  }
  const shown = failures.slice(0, ssoFailuresShown);
  const lines = shown.map(
    (f) =>
      `• ${escapeMrkdwn(f.timestamp.replace('T', ' ').slice(0, 16))} UTC · ${escapeMrkdwn(f.email)}: ${escapeMrkdwn(f.reason)}`,
  );
  const text = `Recent single sign-on failures${whose}, newest first:`;
  return {
    text: `${text} ${plural(failures.length, 'failure')}.`,
    blocks: [
      section(`*${text}*\n${lines.join('\n')}`),
      ...(failures.length > shown.length
        ? [context(`And ${plural(failures.length - shown.length, 'older one')}.`)]
        : []),
    ],
  };
}
