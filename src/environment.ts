/**
 * The environment variables Faultline reads, each checked on its own (`environmentSchema`) or
 * with the others it needs (`missingVariables`). Messages name the variable, never its value.
 */
import { z } from 'zod';
import { isSecureUrl } from './client/index.ts';
import { parseApprovalRules } from './guardrails/approvalRequests.ts';
import { parseSubnet } from './http.ts';

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

/** An optional variable that, when set, must pass `ok`. */
const optionalWhere = (ok: (value: string) => boolean, message: string) =>
  optionalText.refine((v) => v === undefined || ok(v), message);

const positiveInteger = (fallback: number, message: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return fallback;
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < 1) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return parsed;
    });

const sessionKey = (name: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      const key = Buffer.from(value, 'base64');
      if (key.length !== 32 || key.toString('base64') !== value.replace(/\s/g, '')) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be 32 random bytes in base64 (openssl rand -base64 32)`,
        });
        return z.NEVER;
      }
      return key;
    });

/**
 * A URL a secret travels to (the bot token, platform sessions, the login page): https:, or plain
 * http: only to a loopback host, and no credentials in the URL itself. Adds its issues to `ctx`
 * and returns the parsed URL, or undefined when the value is not a URL at all.
 */
function checkSecureUrl(name: string, loopbackUse: string, value: string, ctx: z.RefinementCtx): URL | undefined {
  const parsed = URL.parse(value);
  if (!parsed) return undefined;
  if (!isSecureUrl(parsed)) {
    const message =
      parsed.protocol === 'http:'
        ? `${name} must use https: (plain http is only for ${loopbackUse})`
        : `${name} must use https:`;
    ctx.addIssue({ code: 'custom', message });
  }
  if (parsed.username || parsed.password)
    ctx.addIssue({ code: 'custom', message: `${name} must not carry credentials` });
  return parsed;
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * `modal`: the Slack form only; `page`: the secure page only; `both`: the page offered first;
 * `sso`: the secure page with single sign-on alone, no password anywhere.
 */
export const loginModes = ['modal', 'page', 'both', 'sso'] as const;
export type LoginMode = (typeof loginModes)[number];

/** `required`: a login is linked to a Slack person only when its e-mail is theirs; `off`: not checked. */
export const emailMatchModes = ['required', 'off'] as const;
export type EmailMatchMode = (typeof emailMatchModes)[number];

export const environmentSchema = z.object({
  SLACK_BOT_TOKEN: optionalWhere(
    (v) => v.startsWith('xoxb-'),
    'SLACK_BOT_TOKEN must be a bot token starting with xoxb-',
  ),
  SLACK_APP_TOKEN: optionalWhere(
    (v) => v.startsWith('xapp-'),
    'SLACK_APP_TOKEN must be an app-level token starting with xapp-',
  ),
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_API_URL: z
    .string()
    .trim()
    .default('https://slack.com/api/')
    .superRefine((value, ctx) => {
      if (!checkSecureUrl('SLACK_API_URL', 'a loopback address', value, ctx))
        ctx.addIssue({ code: 'custom', message: 'SLACK_API_URL must be a URL' });
    }),
  PORT: positiveInteger(3000, 'PORT must be a port number').refine((p) => p <= 65535, 'PORT must be a port number'),
  OPS_PORT: optionalWhere(
    (v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 65535,
    'OPS_PORT must be a port number',
  ).transform((v) => (v === undefined ? undefined : Number(v))),
  METRICS_PUBLIC: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'METRICS_PUBLIC must be true or false' }).optional())
    .transform((v) => v === 'true'),
  MCP_ENABLED: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'MCP_ENABLED must be true or false' }).optional())
    .transform((v) => v === 'true'),
  PLATFORM_API_URL: z
    .string({ error: 'PLATFORM_API_URL is required: the platform base URL ending in /v1' })
    .trim()
    .superRefine((value, ctx) => {
      const parsed = URL.parse(value);
      if (!parsed) {
        ctx.addIssue({ code: 'custom', message: 'PLATFORM_API_URL must be a URL ending in /v1' });
        return;
      }
      if (!/\/v1\/?$/.test(parsed.pathname))
        ctx.addIssue({ code: 'custom', message: 'PLATFORM_API_URL must end in /v1' });
      checkSecureUrl('PLATFORM_API_URL', 'a loopback simulator', value, ctx);
    })
    .transform((value) => value.replace(/\/+$/, '')),
  PLATFORM_APP_URL: optionalWhere((v) => URL.canParse(v), 'PLATFORM_APP_URL must be a URL'),
  SESSION_KEY: sessionKey('SESSION_KEY'),
  SESSION_KEY_PREVIOUS: sessionKey('SESSION_KEY_PREVIOUS'),
  STORE_URL: z
    .string()
    .trim()
    .default('sqlite://./data/faultline.db')
    .refine(
      (v) => /^(sqlite:\/\/.+|redis:\/\/.+|rediss:\/\/.+|memory:\/\/)$/.test(v),
      'STORE_URL must be sqlite://<file>, redis://… or memory://',
    ),
  SLASH_COMMAND: z
    .string()
    .trim()
    .default('/chaos')
    .refine((v) => /^\/[a-z0-9_-]{1,31}$/.test(v), 'SLASH_COMMAND must look like /chaos'),
  ATTACK_CHANNELS: optionalText
    .transform((v) =>
      v === undefined
        ? undefined
        : v
            .split(',')
            .map((id) => id.trim())
            .filter(Boolean),
    )
    .refine(
      (ids) => ids === undefined || ids.every((id) => /^[CGD][A-Z0-9]{2,}$/.test(id)),
      'ATTACK_CHANNELS must be channel ids such as C0123ABCD, separated by commas',
    ),
  MAX_ATTACK_SECONDS: positiveInteger(3600, 'MAX_ATTACK_SECONDS must be a whole number of seconds'),
  TRACKER_PROJECT_ID: optionalText,
  TRACKER_ISSUE_TYPE_ID: optionalText,
  POLL_SECONDS: positiveInteger(10, 'POLL_SECONDS must be a whole number of seconds'),
  COUNTDOWN_SECONDS: positiveInteger(60, 'COUNTDOWN_SECONDS must be a whole number of seconds'),
  HALT_SLO_SECONDS: positiveInteger(60, 'HALT_SLO_SECONDS must be a whole number of seconds'),
  PRESENCE_MINUTES: z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return 15;
      const parsed = Number(value);
      if (!/^\d+$/.test(value) || parsed > 24 * 60) {
        ctx.addIssue({
          code: 'custom',
          message: 'PRESENCE_MINUTES must be a whole number of minutes, at most 1440 (0 turns presence checks off)',
        });
        return z.NEVER;
      }
      return parsed;
    }),
  LOG_LEVEL: z.enum(logLevels, { error: `LOG_LEVEL must be one of ${logLevels.join(', ')}` }).default('info'),
  PUBLIC_URL: optionalText.superRefine((value, ctx) => {
    if (value === undefined) return;
    const parsed = checkSecureUrl('PUBLIC_URL', 'loopback', value, ctx);
    if (!parsed) {
      ctx.addIssue({ code: 'custom', message: 'PUBLIC_URL must be the https: address where people reach Faultline' });
      return;
    }
    if (parsed.search || parsed.hash)
      ctx.addIssue({
        code: 'custom',
        message: 'PUBLIC_URL must be a plain base address, without credentials, query or fragment',
      });
  }),
  MONITORING_A_INTEGRATION: optionalText,
  MONITORING_A_DOMAIN: optionalWhere(
    (v) => /^[a-z0-9.-]+(:\d+)?$/i.test(v),
    'MONITORING_A_DOMAIN must be a host name such as app.monitoring-a.example',
  ),
  MONITORING_B_URI: optionalWhere(
    (v) => /^https?:$/.test(URL.parse(v)?.protocol ?? ''),
    'MONITORING_B_URI must be an http(s) URL',
  ),
  APPROVAL_RULES: optionalText.transform((value, ctx) => {
    if (value === undefined) return [];
    const parsed = parseApprovalRules(value);
    if ('rules' in parsed) return parsed.rules;
    ctx.addIssue({
      code: 'custom',
      message:
        'APPROVAL_RULES must be a comma-separated list of always, all-targets, length>SECONDS, type=<attack type>, team=<name>, channel=<id>',
    });
    return z.NEVER;
  }),
  LOGIN_MODE: optionalText.pipe(
    z.enum(loginModes, { error: `LOGIN_MODE must be one of ${loginModes.join(', ')}` }).optional(),
  ),
  SSO_COMPANY: optionalText,
  SLACK_CLIENT_URL: z
    .string()
    .trim()
    .default('https://app.slack.com/client/')
    .superRefine((value, ctx) => {
      const parsed = checkSecureUrl('SLACK_CLIENT_URL', 'a loopback address', value, ctx);
      if (!parsed || parsed.search || parsed.hash)
        ctx.addIssue({
          code: 'custom',
          message:
            "SLACK_CLIENT_URL must be the base address of Slack's web client, such as https://app.slack.com/client/",
        });
    })
    .transform((value) => (value.endsWith('/') ? value : `${value}/`)),
  LOGIN_EMAIL_MATCH: optionalText.pipe(
    z
      .enum(emailMatchModes, { error: `LOGIN_EMAIL_MATCH must be one of ${emailMatchModes.join(', ')}` })
      .default('required'),
  ),
  TRUSTED_PROXIES: optionalText.transform((value, ctx) => {
    const subnets = (value ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map(parseSubnet);
    if (subnets.every((subnet) => subnet !== undefined)) return subnets;
    ctx.addIssue({
      code: 'custom',
      message: 'TRUSTED_PROXIES must be addresses or CIDR blocks such as 10.0.0.0/8, separated by commas',
    });
    return z.NEVER;
  }),
});

/** Variables needed only in some combinations; checked on the raw values so every gap is listed at once. */
export function missingVariables(env: NodeJS.ProcessEnv): [string, string][] {
  const has = (name: string) => (env[name] ?? '').trim() !== '';
  const missing: [string, string][] = [];
  if (!has('SLACK_BOT_TOKEN')) missing.push(['SLACK_BOT_TOKEN', 'SLACK_BOT_TOKEN is required (xoxb-…)']);
  if (!has('SLACK_APP_TOKEN') && !has('SLACK_SIGNING_SECRET')) {
    missing.push([
      'SLACK_SIGNING_SECRET',
      'SLACK_SIGNING_SECRET is required in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)',
    ]);
  }
  if ((env['MCP_ENABLED'] ?? '').trim() === 'true' && !has('SLACK_SIGNING_SECRET')) {
    missing.push([
      'MCP_ENABLED',
      'MCP_ENABLED=true needs SLACK_SIGNING_SECRET: every request from Slackbot is checked against it',
    ]);
  }
  const loginMode = (env['LOGIN_MODE'] ?? '').trim();
  if ((loginMode === 'page' || loginMode === 'both' || loginMode === 'sso') && !has('PUBLIC_URL')) {
    missing.push([
      'LOGIN_MODE',
      `LOGIN_MODE=${loginMode} needs PUBLIC_URL, the https: address where people reach Faultline's login page`,
    ]);
  }
  if (!has('SESSION_KEY'))
    missing.push(['SESSION_KEY', 'SESSION_KEY is required: 32 random bytes in base64 (openssl rand -base64 32)']);
  return missing;
}

export type Environment = z.output<typeof environmentSchema>;
