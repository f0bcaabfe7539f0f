/** The demo's banner: where the page is, how to log in, and what the demo has turned on. */
import type { Demo, DemoFeatures } from './demo.ts';
import { PLAYGROUND_PEOPLE } from './directory.ts';

/**
 * What the console shows once the demo runs. The page's address is the only one in it: the
 * simulator and the bot listen on ports of their own that nobody needs to open.
 */
export function demoBanner(demo: Demo, options: { logFile?: string } = {}): string {
  const people = PLAYGROUND_PEOPLE.map((person) => person.name);
  return [
    'Faultline demo: the bot, a stand-in for Slack and the platform simulator, all on this machine.',
    '',
    `  Open ${demo.playgroundUrl} in a browser.`,
    '',
    `The page is a small Slack workspace. "Acting as" (top left) picks who you are: ${people.slice(0, -1).join(', ')} or ${people.at(-1)}.`,
    'Switch to see what someone else sees, or to act as them: start an attack as one person, halt it as another.',
    'Its Simulator panel turns a monitor to Alert, as an incident would: see "A guard firing, in the demo" in the README.',
    '',
    ...loginLines(demo),
    '',
    ...featureLines(demo.features),
    '',
    "Logins, game days, countdowns, cards and the page's messages are kept when the demo stops; ./run.sh --fresh starts again from the seed.",
    ...(options.logFile !== undefined
      ? [`The bot's log goes to ${options.logFile}; set LOG_LEVEL (such as LOG_LEVEL=debug) to print it here instead.`]
      : []),
    'To run against a real Slack workspace instead, see "Running against Slack" in the README.',
    'Ctrl-C stops everything.',
  ].join('\n');
}

/** How to log in: the demo logins and their password, or with single sign-on only, the SSO login alone. */
function loginLines({ features, hints, sim }: Demo): string[] {
  const sso = `Log in with SSO signs in ${sim.seed.sso.email}, who has no password, at the simulator's identity provider.`;
  if (features.loginMode === 'sso')
    return [
      'Type /chaos login in the page: single sign-on is the only way in (LOGIN_MODE=sso; LOGIN_MODE=both brings the password back).',
      sso,
    ];
  const width = Math.max(...hints.logins.map((login) => login.email.length));
  return [
    `Type /chaos login in the page. Every demo login has the password ${hints.password}:`,
    ...hints.logins.map((login) => `  ${login.email.padEnd(width)}  ${login.summary}`),
    `MFA code: ${hints.mfaCode}`,
    ...(features.loginMode === 'modal' ? [] : [sso]),
  ];
}

/** Which of the features a workspace configures are on in this demo, and how to change that. */
function featureLines({ approvalRules, loginMode, presenceMinutes, slackbot }: DemoFeatures): string[] {
  const page =
    loginMode === 'modal'
      ? ['The secure login page is off (LOGIN_MODE=modal): /chaos login opens the Slack form only.']
      : loginMode === 'sso'
        ? []
        : [
            `The secure login page is on: /chaos login offers it${loginMode === 'page' ? ' alone' : ' first'} (LOGIN_MODE=${loginMode}; LOGIN_MODE=modal turns it off).`,
          ];
  return [
    approvalRules === ''
      ? 'Two-person approval is off; start the demo with APPROVAL_RULES=length>600 (for example) to try it.'
      : `Two-person approval is on: APPROVAL_RULES=${approvalRules} (APPROVAL_RULES= turns it off).`,
    ...page,
    presenceMinutes === 0
      ? 'Presence checks are off (PRESENCE_MINUTES=0); PRESENCE_MINUTES=2 asks "Still watching?" after 2 minutes.'
      : `Presence checks: an attack running ${presenceMinutes} minute${presenceMinutes === 1 ? '' : 's'} asks whoever watches it "Still watching?" (PRESENCE_MINUTES=${presenceMinutes}; PRESENCE_MINUTES=0 turns them off).`,
    slackbot
      ? "Slackbot's tools are on: the page's Ask Slackbot box calls them as the person acting (MCP_ENABLED=true; MCP_ENABLED=false turns them off)."
      : "Slackbot's tools are off (MCP_ENABLED=false); MCP_ENABLED=true shows the page's Ask Slackbot box.",
    'The README\'s "Approval and the secure login page, in the demo" and "Single sign-on, in the demo" walk through them.',
    "Any other variable of the README's configuration table works too, such as POLL_SECONDS=10 ./run.sh.",
  ];
}
