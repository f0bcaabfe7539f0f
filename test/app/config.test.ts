import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const key = Buffer.alloc(32, 7).toString('base64');
const valid = {
  SLACK_BOT_TOKEN: 'xoxb-123-456-abcdef',
  SLACK_SIGNING_SECRET: 'signing-secret-value',
  PLATFORM_API_URL: 'https://platform.example.com/v1',
  SESSION_KEY: key,
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(valid);
    expect(config.slack.socketMode).toBe(false);
    expect(config.slack.apiUrl).toBe('https://slack.com/api/');
    expect(config.slack.command).toBe('/chaos');
    expect(config.storeUrl).toBe('sqlite://./data/faultline.db');
    expect(config.maxAttackSeconds).toBe(3600);
    expect(config.pollSeconds).toBe(10);
    expect(config.port).toBe(3000);
    expect(config.logLevel).toBe('info');
    expect(config.sessionKeys.current).toEqual(Buffer.alloc(32, 7));
    expect(config.attackChannels).toBeUndefined();
  });

  it('reads approval rules and the monitoring integrations, and names a wrong rule without echoing it', () => {
    const config = loadConfig({
      ...valid,
      APPROVAL_RULES: 'all-targets, length>600,type=memory, team=Payments,channel=C0PROD',
      MONITORING_A_INTEGRATION: 'acme-metrics',
      MONITORING_B_URI: 'https://alerts.example',
    });
    expect(config.approvalRules).toEqual([
      { kind: 'all-targets' },
      { kind: 'length', seconds: 600 },
      { kind: 'type', type: 'memory' },
      { kind: 'team', team: 'Payments' },
      { kind: 'channel', channel: 'C0PROD' },
    ]);
    expect(config.monitoring).toEqual({
      integrationA: 'acme-metrics',
      domainA: undefined,
      uriB: 'https://alerts.example',
    });
    expect(loadConfig(valid).approvalRules).toEqual([]);
    for (const wrong of ['sometimes', 'length>', 'length>abc', 'channel=general', 'type=']) {
      const found = problems({ ...valid, APPROVAL_RULES: wrong });
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(/^APPROVAL_RULES must be a comma-separated list/);
    }
    expect(problems({ ...valid, MONITORING_B_URI: 'alerts' })).toEqual(['MONITORING_B_URI must be an http(s) URL']);
  });

  it('uses Socket Mode when an app token is set, and then needs no signing secret', () => {
    const config = loadConfig({ ...valid, SLACK_SIGNING_SECRET: '', SLACK_APP_TOKEN: 'xapp-1-A1-1' });
    expect(config.slack.socketMode).toBe(true);
  });

  it('reads lists and numbers', () => {
    const config = loadConfig({
      ...valid,
      ATTACK_CHANNELS: 'C0123ABCD, C0999XYZ',
      MAX_ATTACK_SECONDS: '600',
      POLL_SECONDS: '5',
      SLACK_API_URL: 'http://127.0.0.1:9999/api',
    });
    expect(config.attackChannels).toEqual(['C0123ABCD', 'C0999XYZ']);
    expect(config.maxAttackSeconds).toBe(600);
    expect(config.pollSeconds).toBe(5);
    expect(config.slack.apiUrl).toBe('http://127.0.0.1:9999/api/');
  });

  it('escalates a halt still not verified after HALT_SLO_SECONDS, 60 unless set', () => {
    expect(loadConfig(valid).haltSloSeconds).toBe(60);
    expect(loadConfig({ ...valid, HALT_SLO_SECONDS: '90' }).haltSloSeconds).toBe(90);
    for (const wrong of ['0', '-5', '1.5', 'soon'])
      expect(problems({ ...valid, HALT_SLO_SECONDS: wrong })).toEqual([
        'HALT_SLO_SECONDS must be a whole number of seconds',
      ]);
  });

  it('asks "Still watching?" every 15 minutes unless PRESENCE_MINUTES says otherwise, 0 for never', () => {
    expect(loadConfig(valid).presenceMinutes).toBe(15);
    expect(loadConfig({ ...valid, PRESENCE_MINUTES: '0' }).presenceMinutes).toBe(0);
    expect(loadConfig({ ...valid, PRESENCE_MINUTES: ' 30 ' }).presenceMinutes).toBe(30);
    for (const wrong of ['-1', '1.5', 'soon', '1441'])
      expect(problems({ ...valid, PRESENCE_MINUTES: wrong })).toEqual([
        'PRESENCE_MINUTES must be a whole number of minutes, at most 1440 (0 turns presence checks off)',
      ]);
  });

  it('allows plain HTTP to the platform only on loopback', () => {
    expect(loadConfig({ ...valid, PLATFORM_API_URL: 'http://127.0.0.1:8080/v1' }).platform.apiUrl).toBe(
      'http://127.0.0.1:8080/v1',
    );
    expect(problems({ ...valid, PLATFORM_API_URL: 'http://platform.example.com/v1' })).toEqual([
      'PLATFORM_API_URL must use https: (plain http is only for a loopback simulator)',
    ]);
    expect(problems({ ...valid, PLATFORM_API_URL: 'https://platform.example.com/api' })).toEqual([
      'PLATFORM_API_URL must end in /v1',
    ]);
  });

  it('names every wrong variable on its own line and never prints a value', () => {
    const secret = 'not-a-real-bot-token-but-secret';
    const env = {
      SLACK_BOT_TOKEN: secret,
      SESSION_KEY: 'c2hvcnQ=',
      PLATFORM_API_URL: 'ftp://x/v1',
      MAX_ATTACK_SECONDS: '-5',
      LOG_LEVEL: 'loud',
      ATTACK_CHANNELS: 'general',
    };
    const lines = problems(env);
    expect(lines.map((l) => l.split(' ')[0])).toEqual(
      expect.arrayContaining([
        'SLACK_BOT_TOKEN',
        'PLATFORM_API_URL',
        'SESSION_KEY',
        'MAX_ATTACK_SECONDS',
        'LOG_LEVEL',
        'ATTACK_CHANNELS',
        'SLACK_SIGNING_SECRET',
      ]),
    );
    expect(lines).toHaveLength(7);
    const all = lines.join('\n');
    for (const value of [secret, 'c2hvcnQ=', 'ftp://x', '-5', 'loud', 'general']) expect(all).not.toContain(value);
  });

  it('requires the platform URL and a session key', () => {
    expect(problems({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' })).toEqual([
      'PLATFORM_API_URL is required: the platform base URL ending in /v1',
      'SESSION_KEY is required: 32 random bytes in base64 (openssl rand -base64 32)',
    ]);
  });

  it('offers the secure login page only with a public address', () => {
    expect(loadConfig(valid).login.mode).toBe('modal');
    expect(loadConfig(valid).publicUrl).toBeUndefined();
    const withUrl = loadConfig({ ...valid, PUBLIC_URL: 'https://faultline.example.com/' });
    expect(withUrl.publicUrl).toBe('https://faultline.example.com');
    expect(withUrl.login.mode).toBe('both');
    expect(loadConfig({ ...valid, PUBLIC_URL: 'https://faultline.example.com', LOGIN_MODE: 'page' }).login.mode).toBe(
      'page',
    );
    expect(loadConfig({ ...valid, PUBLIC_URL: 'http://127.0.0.1:3000' }).publicUrl).toBe('http://127.0.0.1:3000');
    expect(problems({ ...valid, LOGIN_MODE: 'page' })).toEqual([
      "LOGIN_MODE=page needs PUBLIC_URL, the https: address where people reach Faultline's login page",
    ]);
    expect(problems({ ...valid, PUBLIC_URL: 'http://faultline.example.com' })).toEqual([
      'PUBLIC_URL must use https: (plain http is only for loopback)',
    ]);
    expect(problems({ ...valid, PUBLIC_URL: 'https://faultline.example.com', LOGIN_MODE: 'sometimes' })).toEqual([
      'LOGIN_MODE must be one of modal, page, both, sso',
    ]);
  });

  it("sends the page's Back to Slack to Slack's web client, or to the one named", () => {
    expect(loadConfig(valid).login.slackClientUrl).toBe('https://app.slack.com/client/');
    expect(loadConfig({ ...valid, SLACK_CLIENT_URL: 'http://127.0.0.1:4000/client' }).login.slackClientUrl).toBe(
      'http://127.0.0.1:4000/client/',
    );
    expect(problems({ ...valid, SLACK_CLIENT_URL: 'http://slack.example.com/client/' })).toEqual([
      'SLACK_CLIENT_URL must use https: (plain http is only for a loopback address)',
    ]);
    expect(problems({ ...valid, SLACK_CLIENT_URL: 'not a url' })).toEqual([
      "SLACK_CLIENT_URL must be the base address of Slack's web client, such as https://app.slack.com/client/",
    ]);
  });

  it('checks logins against Slack e-mails unless told not to, and believes no proxy unless one is named', () => {
    expect(loadConfig(valid).login).toMatchObject({ emailMatch: 'required', trustedProxies: [] });
    expect(loadConfig({ ...valid, LOGIN_EMAIL_MATCH: 'off' }).login.emailMatch).toBe('off');
    expect(problems({ ...valid, LOGIN_EMAIL_MATCH: 'maybe' })).toEqual([
      'LOGIN_EMAIL_MATCH must be one of required, off',
    ]);
    expect(loadConfig({ ...valid, TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7 ,fd00::/8' }).login.trustedProxies).toEqual([
      { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
      { address: '192.0.2.7', prefix: 32, family: 'ipv4' },
      { address: 'fd00::', prefix: 8, family: 'ipv6' },
    ]);
    for (const wrong of ['10.0.0.0/33', 'proxy.internal', '10.0.0.0/8/1', '10.0.0.0/x'])
      expect(problems({ ...valid, TRUSTED_PROXIES: wrong })).toEqual([
        'TRUSTED_PROXIES must be addresses or CIDR blocks such as 10.0.0.0/8, separated by commas',
      ]);
  });

  it('sends the bot token to Slack over https:, or plain http only to a loopback fake', () => {
    expect(loadConfig({ ...valid, SLACK_API_URL: 'https://slack.example.com/api' }).slack.apiUrl).toBe(
      'https://slack.example.com/api/',
    );
    for (const loopback of ['http://127.0.0.1:9999/api/', 'http://localhost:9999/api/', 'http://[::1]:9999/api/']) {
      expect(loadConfig({ ...valid, SLACK_API_URL: loopback }).slack.apiUrl).toBe(loopback);
    }
    for (const clear of [
      'http://slack.example.com/api/',
      'http://10.0.0.5/api/',
      'http://127.0.0.1.example.com/api/',
    ]) {
      expect(problems({ ...valid, SLACK_API_URL: clear })).toEqual([
        'SLACK_API_URL must use https: (plain http is only for a loopback address)',
      ]);
    }
    expect(problems({ ...valid, SLACK_API_URL: 'ftp://slack.example.com/api/' })).toEqual([
      'SLACK_API_URL must use https:',
    ]);
    expect(problems({ ...valid, SLACK_API_URL: 'https://me:hunter2@slack.example.com/api/' })).toEqual([
      'SLACK_API_URL must not carry credentials',
    ]);
    expect(problems({ ...valid, SLACK_API_URL: 'not a url' })).toEqual(['SLACK_API_URL must be a URL']);
  });
});

describe('METRICS_PUBLIC', () => {
  it('is off unless set to true or false', () => {
    expect(loadConfig(valid).metricsPublic).toBe(false);
    expect(loadConfig({ ...valid, METRICS_PUBLIC: ' true ' }).metricsPublic).toBe(true);
    expect(loadConfig({ ...valid, METRICS_PUBLIC: 'false' }).metricsPublic).toBe(false);
    expect(problems({ ...valid, METRICS_PUBLIC: 'yes' })).toEqual(['METRICS_PUBLIC must be true or false']);
  });
});

describe('MCP_ENABLED', () => {
  it('is off unless set to true, and needs the signing secret Slackbot signs with', () => {
    expect(loadConfig(valid).mcpEnabled).toBe(false);
    expect(loadConfig({ ...valid, MCP_ENABLED: 'true' }).mcpEnabled).toBe(true);
    expect(problems({ ...valid, MCP_ENABLED: 'on' })).toEqual(['MCP_ENABLED must be true or false']);
    const socketOnly = { ...valid, SLACK_SIGNING_SECRET: '', SLACK_APP_TOKEN: 'xapp-1' };
    expect(loadConfig(socketOnly).mcpEnabled).toBe(false);
    expect(problems({ ...socketOnly, MCP_ENABLED: 'true' })).toEqual([
      'MCP_ENABLED=true needs SLACK_SIGNING_SECRET: every request from Slackbot is checked against it',
    ]);
  });
});

describe('OPS_PORT', () => {
  it('is off unless set, and then a port of its own', () => {
    expect(loadConfig(valid).opsPort).toBeUndefined();
    expect(loadConfig({ ...valid, OPS_PORT: '' }).opsPort).toBeUndefined();
    expect(loadConfig({ ...valid, OPS_PORT: ' 9090 ' }).opsPort).toBe(9090);
    expect(problems({ ...valid, OPS_PORT: 'metrics' })).toEqual(['OPS_PORT must be a port number']);
    expect(problems({ ...valid, OPS_PORT: '70000' })).toEqual(['OPS_PORT must be a port number']);
    expect(problems({ ...valid, OPS_PORT: '3000' })).toEqual(['OPS_PORT must be another port than PORT']);
    expect(problems({ ...valid, PORT: '8080', OPS_PORT: '8080' })).toEqual(['OPS_PORT must be another port than PORT']);
  });
});
