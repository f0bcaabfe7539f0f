import { readdirSync, readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { listeners } from '../../src/listeners.ts';
import { loadConfig } from '../../src/config.ts';
import { ATTACK_EVENT_TYPE } from '../../src/views/attacks/attackCard.ts';
import { GAME_DAY_EVENT_TYPE } from '../../src/views/attacks/metadata.ts';

/** The bot scopes each Web API method the bot calls needs (api.slack.com/methods). */
const scopesOfMethod: Record<string, string[]> = {
  'chat.postMessage': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.getPermalink': [],
  // Public channels need channels:read, private ones groups:read.
  'conversations.info': ['channels:read', 'groups:read'],
  'users.conversations': ['channels:read', 'groups:read'],
  'users.info': ['users:read'],
  // A login's e-mail, matched against the Slack profile's (users.info shows it with this scope).
  'users.lookupByEmail': ['users:read.email'],
  'auth.test': [],
  // The game-day report, shared as a file through Slack's external upload.
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
  'views.open': [],
  'views.push': [],
  'views.update': [],
  'views.publish': [],
  // A workflow step finished after its delivery (approved, or its attack ended): no scope needed.
  'functions.completeSuccess': [],
  'functions.completeError': [],
};

/** Every `client.<family>.<method>(` call in src/, as `family.method`. */
function webApiMethodsCalled(): string[] {
  const root = new URL('../../src/', import.meta.url);
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  const methods = files.flatMap((file) =>
    [...readFileSync(new URL(file, root), 'utf8').matchAll(/\bclient\.([a-z]+)\.([a-zA-Z]+)\(/g)].map(
      (match) => `${match[1]}.${match[2]}`,
    ),
  );
  return [...new Set(methods)].sort();
}

const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));
const schema = JSON.parse(
  readFileSync(new URL('../fixtures/slack/manifest.schema.1.0.0.json', import.meta.url), 'utf8'),
);

describe('manifest.yml', () => {
  it("is valid against Slack's published manifest schema", () => {
    const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
    const validate = ajv.compile(schema);
    const valid = validate(manifest);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('fails the schema when a key is misspelt, so the test above can catch drift', () => {
    const ajv = new Ajv({ strict: false, logger: false });
    const validate = ajv.compile(schema);
    expect(validate({ ...manifest, features: { ...manifest.features, slash_command: [] } })).toBe(false);
  });

  it('declares the slash command the bot answers by default', () => {
    const config = loadConfig({
      PLATFORM_API_URL: 'https://platform.example/v1',
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's',
      SESSION_KEY: Buffer.alloc(32, 1).toString('base64'),
    });
    expect(manifest.features.slash_commands.map((c: { command: string }) => c.command)).toEqual([config.slack.command]);
  });

  it('declares exactly the shortcuts that have handlers', () => {
    const declared = (manifest.features.shortcuts ?? []).map((s: { callback_id: string }) => s.callback_id).sort();
    expect(declared).toEqual(Object.keys(listeners.shortcuts).sort());
  });

  it('subscribes to exactly the events that have handlers, function_executed for the custom steps', () => {
    const declared = [...(manifest.settings.event_subscriptions?.bot_events ?? [])].sort();
    const handled = [
      ...Object.keys(listeners.events),
      ...(Object.keys(listeners.steps).length ? ['function_executed'] : []),
    ];
    expect(declared).toEqual(handled.sort());
    expect(manifest.features.app_home?.home_tab_enabled ?? false).toBe('app_home_opened' in listeners.events);
  });

  it('declares exactly the custom steps that have handlers, each acting for the person who used the workflow, in an org-ready app', () => {
    expect(Object.keys(manifest.functions ?? {}).sort()).toEqual(Object.keys(listeners.steps).sort());
    for (const step of Object.values(manifest.functions) as { input_parameters: Record<string, { type: string }> }[]) {
      // A user context: Slack fills it with whoever used the workflow, and a builder cannot set it.
      expect(step.input_parameters['user']).toMatchObject({ type: 'slack#/types/user_context', is_required: true });
      // No other input names a person a step could be made to act for.
      const people = Object.values(step.input_parameters).filter((p) => /user/.test(p.type));
      expect(people).toHaveLength(1);
    }
    expect(manifest.settings.org_deploy_enabled).toBe(true);
  });

  it("declares Faultline's tools for Slackbot on /mcp, with Slack identity auth", () => {
    expect(manifest.mcp_servers).toEqual({
      faultline: { url: expect.stringMatching(/^https:\/\/[^/]+\/mcp$/), auth_type: 'slack_identity_auth' },
    });
  });

  it('declares the message metadata the cards carry', () => {
    expect(Object.keys(manifest.types ?? {}).sort()).toEqual([ATTACK_EVENT_TYPE, GAME_DAY_EVENT_TYPE].sort());
  });

  it('enables interactivity because buttons, modals and option lists have handlers', () => {
    const interactive =
      Object.keys(listeners.actions).length +
      Object.keys(listeners.views).length +
      Object.keys(listeners.options).length;
    expect(interactive).toBeGreaterThan(0);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
  });

  it('asks for the scopes of the Web API methods the bot calls, and no more', () => {
    const called = webApiMethodsCalled();
    // Finds the calls it checks: the messenger's, the adapter's and the names lookup.
    expect(called).toEqual(
      expect.arrayContaining(['chat.postMessage', 'views.open', 'users.conversations', 'users.info']),
    );
    expect(called.filter((method) => !(method in scopesOfMethod))).toEqual([]);
    const needed = new Set([
      ...called.flatMap((method) => scopesOfMethod[method] ?? []),
      // The slash command, and cards posted in public channels the app was not invited to.
      'commands',
      'chat:write.public',
      // Slackbot calling Faultline's tools (mcp_servers).
      ...(manifest.mcp_servers ? ['mcp:connect'] : []),
    ]);
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...needed].sort());
  });

  it('has its bot scopes listed in the security guide, all of them', () => {
    const guide = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    const section = guide.slice(guide.indexOf("## The Slack app's scopes"));
    const sentence = /asks for these bot scopes, each for one purpose: ([^#]*)/.exec(section)?.[1] ?? '';
    const named = [...sentence.matchAll(/`([^`]+)`/g)].map((match) => match[1]).sort();
    expect(named).toEqual([...manifest.oauth_config.scopes.bot].sort());
  });
});
