import { createHmac } from 'node:crypto';

/** Slack's v0 request signature: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>`. */
export function slackSignature(signingSecret: string, timestampSeconds: number, rawBody: string): string {
  const digest = createHmac('sha256', signingSecret).update(`v0:${timestampSeconds}:${rawBody}`).digest('hex');
  return `v0=${digest}`;
}
