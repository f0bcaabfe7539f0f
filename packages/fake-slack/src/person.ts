import type { BotLink, BotResponse } from './bot-link.ts';
import { ModalView, type ModalDriver } from './modal.ts';
import { channelName, eventEnvelope, messageJson, slashCommandForm, viewJson } from './payloads.ts';
import {
  channelView,
  interactionFields,
  messageDriver,
  ViewDriver,
  type Actor,
  type ChannelView,
  type Message,
  type Surface,
} from './surface.ts';
import { applyMessageReply } from './web-api.ts';
import { slackId, type Workspace } from './workspace.ts';

export const DEFAULT_CHANNEL = 'C0GENERAL';

export interface SlackPerson {
  readonly id: string;
  readonly name: string;
  /** Types the slash command with this text; a reply in the ack body is shown as Slack shows it. */
  command(text: string, options?: { channel?: string }): Promise<BotResponse>;
  /** The top modal of this person's view stack. */
  modal(): ModalDriver | undefined;
  /** This person's App Home tab as last published. */
  home(): Surface | undefined;
  /** A channel's messages as this person sees them, to act on as this person. */
  channel(id: string): ChannelView;
  /** Ephemeral messages only this person sees, oldest first. */
  ephemerals(channel?: string): Message[];
  lastEphemeral(): Message | undefined;
  /** Runs a message shortcut on a message. */
  shortcut(callbackId: string, message: Pick<Message, 'ts' | 'channel'>): Promise<BotResponse>;
  /** Opens the App Home tab: an `app_home_opened` event. */
  openHome(): Promise<BotResponse>;
}

function dmChannel(userId: string): string {
  return `D${userId.replace(/^[UW]/, '')}`;
}

/** Delivers an Events API envelope around `event`. */
export function deliverEvent(
  workspace: Workspace,
  bot: BotLink,
  event: Record<string, unknown>,
  teamId?: string,
): Promise<BotResponse> {
  const envelope = eventEnvelope(workspace.identity, event, teamId ?? workspace.identity.teamId, slackId('Ev'));
  return bot.event(envelope);
}

/** A person in the workspace, acting through the Slack client. */
export class Person implements SlackPerson {
  private readonly actor: Actor;

  constructor(actor: Actor) {
    this.actor = actor;
  }

  get id(): string {
    return this.actor.profile.id;
  }

  get name(): string {
    return this.actor.profile.name;
  }

  async command(text: string, options: { channel?: string } = {}): Promise<BotResponse> {
    const { workspace, profile, bot } = this.actor;
    const channel = options.channel ?? DEFAULT_CHANNEL;
    // Slack runs a command only where the person is, so running one makes them a member.
    workspace.join(profile.id, channel);
    const { url, target } = workspace.issueResponseUrl('commands', { userId: profile.id, channel });
    const form = slashCommandForm(workspace.identity, profile, {
      channel,
      text,
      responseUrl: url,
      triggerId: workspace.issueTrigger(profile.id, channel),
    });
    const response = await bot.command(form);
    // Slack shows a message in the ack body as the command's first reply.
    if (response.status === 200 && response.body !== undefined) {
      const reply =
        typeof response.body === 'string' ? { text: response.body } : (response.body as Record<string, unknown>);
      workspace.record('command_response', reply, applyMessageReply(workspace, target, reply));
    }
    return response;
  }

  modal(): ModalDriver | undefined {
    const top = this.actor.workspace.modalStack(this.id).at(-1);
    return top === undefined ? undefined : new ModalView(this.actor.workspace, this.actor, top);
  }

  home(): Surface | undefined {
    const home = this.actor.workspace.home(this.id);
    return home === undefined ? undefined : new ViewDriver(this.actor.workspace, this.actor, home);
  }

  channel(id: string): ChannelView {
    return channelView(this.actor.workspace, this.actor, id);
  }

  ephemerals(channel?: string): Message[] {
    return this.actor.workspace
      .ephemeralsFor(this.id)
      .filter((record) => channel === undefined || record.channel === channel)
      .map((record) => messageDriver(this.actor.workspace, this.actor, record));
  }

  lastEphemeral(): Message | undefined {
    return this.ephemerals().at(-1);
  }

  async shortcut(callbackId: string, message: Pick<Message, 'ts' | 'channel'>): Promise<BotResponse> {
    const { workspace, profile, bot } = this.actor;
    const record = workspace.findMessage(message.channel, message.ts);
    if (record === undefined)
      throw new Error(
        `No message ${message.ts} in ${message.channel} to run a shortcut on (ephemeral messages have no shortcuts)`,
      );
    return bot.interaction({
      type: 'message_action',
      callback_id: callbackId,
      trigger_id: workspace.issueTrigger(profile.id, record.channel),
      message_ts: record.ts,
      response_url: workspace.issueResponseUrl('actions', {
        userId: profile.id,
        channel: record.channel,
        original: record,
      }).url,
      message: messageJson(workspace.identity, record),
      channel: { id: record.channel, name: channelName(record.channel) },
      action_ts: workspace.newTs(),
      ...interactionFields(this.actor),
    });
  }

  openHome(): Promise<BotResponse> {
    const { workspace, profile, bot } = this.actor;
    const home = workspace.home(profile.id);
    return deliverEvent(
      workspace,
      bot,
      {
        type: 'app_home_opened',
        user: profile.id,
        channel: dmChannel(profile.id),
        tab: 'home',
        event_ts: workspace.newTs(),
        ...(home !== undefined ? { view: viewJson(workspace.identity, home) } : {}),
      },
      profile.teamId,
    );
  }
}
