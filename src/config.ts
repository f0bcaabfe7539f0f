import {
  type EmailMatchMode,
  type Environment,
  environmentSchema,
  type LoginMode,
  missingVariables,
} from './environment.ts';
import type { ApprovalRule } from './guardrails/approvalRequests.ts';
import type { Subnet } from './http.ts';

export interface Config {
  slack: {
    botToken: string;
    appToken: string | undefined;
    signingSecret: string | undefined;
    apiUrl: string;
    socketMode: boolean;
    command: string;
  };
  port: number;
  /** Where /metrics, /readyz and /healthz are served apart from Slack's traffic; /metrics then only there. */
  opsPort: number | undefined;
  /** Without an operations port, whether /metrics (unauthenticated) is served on the public port. */
  metricsPublic: boolean;
  /** Whether `/mcp` answers Slackbot's tool calls (Slack identity auth, signed like Slack's requests). */
  mcpEnabled: boolean;
  platform: { apiUrl: string; appUrl: string | undefined };
  sessionKeys: { current: Buffer; previous: Buffer | undefined };
  storeUrl: string;
  attackChannels: string[] | undefined;
  maxAttackSeconds: number;
  tracker: { projectId: string | undefined; issueTypeId: string | undefined };
  pollSeconds: number;
  /** How long a game-day step counts down before it starts, for anyone to veto it. */
  countdownSeconds: number;
  /** How long a halt may take to stop every target before it is escalated (Halt again, its halter told). */
  haltSloSeconds: number;
  /** How long an attack runs before its attendant is asked "Still watching?", and then how often; 0: never. */
  presenceMinutes: number;
  logLevel: Environment['LOG_LEVEL'];
  /** Where people reach the bot's own pages (the secure login page), without a trailing slash. */
  publicUrl: string | undefined;
  login: {
    mode: LoginMode;
    /** Whether a platform login's e-mail must be the Slack person's e-mail. */
    emailMatch: EmailMatchMode;
    /** Proxies whose X-Forwarded-For names the client of the login page; none: the socket's peer is. */
    trustedProxies: Subnet[];
    /** The company whose identity provider "Log in with SSO" goes to; asked on the page when unset. */
    ssoCompany: string | undefined;
    /** Slack's web client, where the page's "Back to Slack" goes: `<this><workspace id>`, with a trailing slash. */
    slackClientUrl: string;
  };
  /** The company's monitoring integrations that guards read through (each may be overridden per guard). */
  monitoring: { integrationA: string | undefined; domainA: string | undefined; uriB: string | undefined };
  /** When a start needs a second person; empty: never. */
  approvalRules: ApprovalRule[];
}

/** A configuration that cannot run; `problems` has one line per wrong variable and no values. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Faultline cannot start:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Reads and validates the environment once, at start-up. Messages never echo a value. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const result = environmentSchema.safeParse(env);
  const byVariable = new Map<string, string>();
  for (const issue of result.error?.issues ?? []) {
    const variable = String(issue.path[0] ?? 'environment');
    const message = issue.message.includes(variable) ? issue.message : `${variable}: ${issue.message}`;
    if (!byVariable.has(variable)) byVariable.set(variable, message);
  }
  for (const [variable, message] of missingVariables(env))
    if (!byVariable.has(variable)) byVariable.set(variable, message);
  if (result.success && result.data.OPS_PORT === result.data.PORT)
    byVariable.set('OPS_PORT', 'OPS_PORT must be another port than PORT');
  if (!result.success || byVariable.size) throw new ConfigError([...byVariable.values()]);
  const e = result.data;
  return {
    slack: {
      botToken: e.SLACK_BOT_TOKEN ?? '',
      appToken: e.SLACK_APP_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      apiUrl: e.SLACK_API_URL.endsWith('/') ? e.SLACK_API_URL : `${e.SLACK_API_URL}/`,
      socketMode: e.SLACK_APP_TOKEN !== undefined,
      command: e.SLASH_COMMAND,
    },
    port: e.PORT,
    opsPort: e.OPS_PORT,
    metricsPublic: e.METRICS_PUBLIC,
    mcpEnabled: e.MCP_ENABLED,
    platform: { apiUrl: e.PLATFORM_API_URL, appUrl: e.PLATFORM_APP_URL?.replace(/\/+$/, '') },
    sessionKeys: { current: e.SESSION_KEY as Buffer, previous: e.SESSION_KEY_PREVIOUS },
    storeUrl: e.STORE_URL,
    attackChannels: e.ATTACK_CHANNELS,
    maxAttackSeconds: e.MAX_ATTACK_SECONDS,
    tracker: { projectId: e.TRACKER_PROJECT_ID, issueTypeId: e.TRACKER_ISSUE_TYPE_ID },
    pollSeconds: e.POLL_SECONDS,
    countdownSeconds: e.COUNTDOWN_SECONDS,
    haltSloSeconds: e.HALT_SLO_SECONDS,
    presenceMinutes: e.PRESENCE_MINUTES,
    logLevel: e.LOG_LEVEL,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    login: {
      mode: e.LOGIN_MODE ?? (e.PUBLIC_URL ? 'both' : 'modal'),
      emailMatch: e.LOGIN_EMAIL_MATCH,
      trustedProxies: e.TRUSTED_PROXIES,
      ssoCompany: e.SSO_COMPANY,
      slackClientUrl: e.SLACK_CLIENT_URL,
    },
    monitoring: { integrationA: e.MONITORING_A_INTEGRATION, domainA: e.MONITORING_A_DOMAIN, uriB: e.MONITORING_B_URI },
    approvalRules: e.APPROVAL_RULES,
  };
}
