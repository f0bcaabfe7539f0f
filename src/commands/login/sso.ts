import { z } from 'zod';
import { ssoFailuresMessage } from '../../views/login/sso.ts';
import { subcommand } from '../command.ts';
import { contract } from '../contract.ts';

const usage = 'sso failures [email]';

/**
 * `sso failures [email]`: why the company's recent single sign-ons failed (newest first), for a
 * security reader (COMPANY_SECURITY_READ) helping someone from Slack. The platform decides who
 * may read them; a refusal says which privilege is missing.
 */
export const ssoCommand = subcommand({
  name: 'sso',
  usage,
  summary: "Shows the company's recent single sign-on failures, or one person's (needs COMPANY_SECURITY_READ).",
  examples: ['sso failures', 'sso failures dana@acme.example'],
  args: contract({
    command: 'sso',
    usage,
    words: {
      what: z.literal('failures', { error: 'Say which: `sso failures [email]`.' }),
      email: z.email({ error: 'That is not an e-mail address.' }).optional(),
    },
  }),
  async run(request, { words }, { login }) {
    const failures = await login.ssoFailures(request.actor, words.email);
    return { kind: 'message', message: ssoFailuresMessage(failures, words.email) };
  },
});
