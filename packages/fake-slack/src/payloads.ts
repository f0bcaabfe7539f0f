import type { Identity, MessageRecord, ViewRecord } from './workspace.ts';

/** A person in the fake workspace. */
export interface Profile {
  id: string;
  name: string;
  teamId: string;
  teamDomain: string;
  enterpriseId?: string;
  /** The full name users.info reports. */
  realName?: string;
  /** The display name users.info reports; may be empty, as in Slack. */
  displayName?: string;
  /** The profile's e-mail: users.info shows it, and users.lookupByEmail finds it, with `users:read.email`. */
  email?: string;
}

/** The deprecated verification token Slack still sends in every payload. */
export const VERIFICATION_TOKEN = 'fake-verification-token';

/** A view as Slack returns it from views.* methods and sends it in interaction payloads. */
export function viewJson(identity: Identity, view: ViewRecord): Record<string, unknown> {
  const definition = view.definition;
  return {
    id: view.id,
    team_id: identity.teamId,
    type: view.kind,
    blocks: view.blocks,
    private_metadata: definition['private_metadata'] ?? '',
    callback_id: definition['callback_id'] ?? '',
    state: { values: view.values },
    hash: view.hash,
    title: definition['title'] ?? { type: 'plain_text', text: 'View Title' },
    clear_on_close: definition['clear_on_close'] === true,
    notify_on_close: definition['notify_on_close'] === true,
    close: definition['close'] ?? null,
    submit: definition['submit'] ?? null,
    previous_view_id: view.previousViewId,
    root_view_id: view.rootViewId,
    app_id: identity.appId,
    external_id: definition['external_id'] ?? '',
    app_installed_team_id: identity.teamId,
    bot_id: identity.botId,
  };
}

/** A message as Slack returns it from chat.* methods and sends it in payloads. */
export function messageJson(identity: Identity, message: MessageRecord): Record<string, unknown> {
  const fromBot = message.postedBy === identity.botUserId;
  return {
    type: 'message',
    ...(fromBot ? { bot_id: identity.botId, app_id: identity.appId } : {}),
    user: message.postedBy,
    text: message.text,
    blocks: message.blocks,
    team: identity.teamId,
    ts: message.ts,
    ...(message.threadTs !== undefined ? { thread_ts: message.threadTs } : {}),
    ...(message.files !== undefined ? { files: message.files.map((id) => ({ id })) } : {}),
    ...(message.edited ? { edited: { user: message.postedBy, ts: message.ts } } : {}),
    ...(message.metadata !== undefined ? { metadata: message.metadata } : {}),
  };
}

export function userJson(person: Profile): Record<string, unknown> {
  return { id: person.id, username: person.name, name: person.name, team_id: person.teamId };
}

/** The team and enterprise fields every interaction payload carries. */
export function workspaceFields(person: Profile): Record<string, unknown> {
  const team: Record<string, unknown> = { id: person.teamId, domain: person.teamDomain };
  if (person.enterpriseId !== undefined) team['enterprise_id'] = person.enterpriseId;
  return {
    team,
    enterprise: person.enterpriseId !== undefined ? { id: person.enterpriseId, name: person.enterpriseId } : null,
    is_enterprise_install: false,
  };
}

export function slashCommandForm(
  identity: Identity,
  person: Profile,
  fields: {
    channel: string;
    text: string;
    responseUrl: string;
    triggerId: string;
  },
): Record<string, string> {
  return {
    token: VERIFICATION_TOKEN,
    team_id: person.teamId,
    team_domain: person.teamDomain,
    ...(person.enterpriseId !== undefined
      ? { enterprise_id: person.enterpriseId, enterprise_name: person.enterpriseId }
      : {}),
    channel_id: fields.channel,
    channel_name: channelName(fields.channel),
    user_id: person.id,
    user_name: person.name,
    command: identity.commandName,
    text: fields.text,
    api_app_id: identity.appId,
    is_enterprise_install: 'false',
    response_url: fields.responseUrl,
    trigger_id: fields.triggerId,
  };
}

/** The Events API envelope (`event_callback`) around one event. */
export function eventEnvelope(
  identity: Identity,
  event: Record<string, unknown>,
  teamId: string,
  eventId: string,
): Record<string, unknown> {
  const enterpriseId = identity.enterpriseId ?? null;
  return {
    token: VERIFICATION_TOKEN,
    team_id: teamId,
    ...(enterpriseId !== null ? { enterprise_id: enterpriseId } : {}),
    context_team_id: teamId,
    context_enterprise_id: enterpriseId,
    api_app_id: identity.appId,
    event,
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: enterpriseId,
        team_id: teamId,
        user_id: identity.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
    event_context: `4-${Buffer.from(eventId).toString('base64url')}`,
  };
}

export function channelName(channel: string): string {
  return channel.startsWith('D') ? 'directmessage' : channel.toLowerCase();
}

/** A person as users.info returns them. */
export function userInfoJson(person: Profile, showEmail: boolean): Record<string, unknown> {
  const realName = person.realName ?? person.name;
  const displayName = person.displayName ?? '';
  return {
    id: person.id,
    team_id: person.teamId,
    name: person.name,
    deleted: false,
    real_name: realName,
    tz: 'Etc/UTC',
    is_bot: false,
    is_app_user: false,
    profile: {
      real_name: realName,
      real_name_normalized: realName,
      display_name: displayName,
      display_name_normalized: displayName,
      team: person.teamId,
      // As Slack does: only a token with users:read.email sees the address.
      ...(showEmail && person.email !== undefined ? { email: person.email } : {}),
    },
  };
}
