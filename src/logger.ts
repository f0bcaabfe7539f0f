import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { LogLevel, type Logger as SlackLogger } from '@slack/bolt';

export type { Logger };

const secretKeys = [
  'authorization',
  'Authorization',
  'password',
  'token',
  'renew_token',
  'header',
  'SESSION_KEY',
  'SESSION_KEY_PREVIOUS',
  'cookie',
];

/** pino redaction paths: each secret key at the top level and up to three levels down. */
const redactPaths = secretKeys.flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`]);

/** Tokens that must never reach a log line even inside free text (Slack tokens, bearer values). */
const secretPatterns: [RegExp, string][] = [
  [/xox[abposr]-[A-Za-z0-9-]+/g, 'xox?-[redacted]'],
  [/xapp-[A-Za-z0-9-]+/g, 'xapp-[redacted]'],
  [/Bearer\s+[A-Za-z0-9._~+/=-]+/gi, 'Bearer [redacted]'],
  // One-time login links: Bolt logs the URL of a request it has no route for (a HEAD, say).
  [/\/login\/[^\s/?#"']{8,}/g, '/login/[redacted]'],
  // A single sign-on's callback: the provider's one-time code and the platform's state.
  [/([?&](?:code|state)=)[^&\s#"']+/g, '$1[redacted]'],
];

export function scrubSecrets(text: string): string {
  return secretPatterns.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}

export function createLogger(level: LevelWithSilent, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'faultline' },
      redact: { paths: redactPaths, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        // Free-text messages can carry what redaction paths cannot see.
        logMethod(args, method) {
          method.apply(
            this,
            args.map((arg) => (typeof arg === 'string' ? scrubSecrets(arg) : arg)) as Parameters<typeof method>,
          );
        },
      },
    },
    destination,
  );
}

/**
 * Bolt, its Web API client and the Socket Mode client log raw payloads at debug level, and a
 * login modal's payload carries the password a person typed. Their debug output is therefore
 * never passed on, whatever LOG_LEVEL says; from info up it goes through pino like ours.
 */
export function boltLogger(logger: Logger): SlackLogger {
  const child = logger.child({ component: 'slack' });
  let name = 'slack';
  return {
    debug: () => {},
    info: (...msg: unknown[]) => child.info({ source: name }, scrubSecrets(msg.map(String).join(' '))),
    warn: (...msg: unknown[]) => child.warn({ source: name }, scrubSecrets(msg.map(String).join(' '))),
    error: (...msg: unknown[]) => child.error({ source: name }, scrubSecrets(msg.map(String).join(' '))),
    setLevel: () => {},
    getLevel: () => LogLevel.INFO,
    setName: (value: string) => {
      name = value;
    },
  };
}
