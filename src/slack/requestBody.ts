// What Slack's request bodies say: who sent them, what a form holds, where to answer.
import type { Actor } from '../store/sessions.ts';

export interface BodyIdentity {
  user?: { id: string; name?: string; username?: string; team_id?: string } | undefined;
  user_id?: string;
  user_name?: string;
  team?: { id: string } | null;
  team_id?: string;
  enterprise?: { id: string } | null;
  enterprise_id?: string;
  is_enterprise_install?: boolean | string;
  channel?: { id: string };
  channel_id?: string;
}

/** The person behind a request. Enterprise Grid installs key sessions by org, others by workspace. */
export function actorFrom(body: BodyIdentity): Actor {
  const userId = body.user?.id ?? body.user_id ?? '';
  const workspaceId =
    body.enterprise?.id ?? body.enterprise_id ?? body.user?.team_id ?? body.team?.id ?? body.team_id ?? '';
  if (!userId || !workspaceId) throw new Error('Slack request without a user or workspace');
  return {
    workspaceId,
    userId,
    userName: body.user?.username ?? body.user?.name ?? body.user_name ?? userId,
    channelId: body.channel?.id ?? body.channel_id,
  };
}

export interface InputState {
  value?: string | null;
  selected_option?: { value: string } | null;
  selected_options?: { value: string }[];
  selected_date?: string | null;
  selected_user?: string | null;
  selected_conversation?: string | null;
  selected_channel?: string | null;
}

/** Text inputs and selections of a submitted view, by action id; several selections comma-joined. */
export function readInputs(
  values: Record<string, Record<string, InputState>> | undefined,
): Record<string, string | undefined> {
  const inputs: Record<string, string | undefined> = {};
  for (const block of Object.values(values ?? {})) {
    for (const [actionId, state] of Object.entries(block)) {
      inputs[actionId] =
        state.value ??
        state.selected_option?.value ??
        state.selected_date ??
        state.selected_user ??
        state.selected_conversation ??
        state.selected_channel ??
        state.selected_options?.map((o) => o.value).join(',') ??
        undefined;
    }
  }
  return inputs;
}

/** The response_url of a click in a message (Bolt's `respond` posts to the same one). */
export function responseUrlOf(body: unknown): string | undefined {
  const url = (body as { response_url?: unknown }).response_url;
  return typeof url === 'string' && url ? url : undefined;
}
