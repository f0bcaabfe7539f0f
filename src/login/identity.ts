import type { Person } from '../store/sessions.ts';

/** A Slack person as Slack describes them now. */
export interface SlackIdentity {
  userId: string;
  /** The full name they gave Slack, else their display name or handle. */
  name: string;
  /** Their handle (`@dana`), without the `@`. */
  handle: string;
  /** Their profile's e-mail (`users:read.email`), when it has one. */
  email: string | undefined;
}

/** What logins ask Slack about people; src/slack/directory.ts asks. */
export interface SlackDirectory {
  /**
   * The person as Slack describes them now, or undefined when Slack cannot say. Kept no longer
   * than a login link lives (10 minutes, see LoginLinks.profile): the e-mail a login is matched
   * against is the profile's of at most that long ago.
   */
  person(userId: string): Promise<SlackIdentity | undefined>;
  /** The person whose Slack e-mail this is, or undefined when nobody's is or Slack cannot say. */
  byEmail(email: string): Promise<SlackIdentity | undefined>;
  /** The workspace's name as Slack shows it, or undefined when Slack cannot say. */
  workspaceName(): Promise<string | undefined>;
}

/** What the owner of a login's e-mail is told when it was linked to another Slack person. */
export interface LinkedElsewhere {
  platformUser: string;
  /** The Slack person the login now acts for. */
  linkedTo: Person & { name: string; handle: string };
  workspace: string | undefined;
}

/** How a login reads the person's Slack profile: the Slack form asks Slack, the page the profile its link kept. */
export type ProfileReader = () => Promise<SlackIdentity | undefined>;

/** Where that is said; the words and the Slack call are src/slack/linkNotices.ts's. */
export interface LinkNotices {
  tell(owner: SlackIdentity, linked: LinkedElsewhere): Promise<void>;
}

/** Two e-mail addresses are one when they differ only in case or surrounding space, as Slack matches them. */
export function sameEmail(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}
