/**
 * Every kind of key kept in the store: its prefix, how its keys are built, how long they live and
 * what they hold. Modules build their keys and take their lifetimes from here, and nowhere else.
 * Stored data outlives a release: a prefix or the shape of a key never changes, or what is kept
 * under the old one is lost.
 *
 * A lifetime (`ttlMs`) is a number of milliseconds, `untilDeleted`, or a rule that computes it
 * from what the caller knows when it writes (a lease's cadence, the session a key belongs to).
 */

const minutes = (n: number) => n * 60_000;
const hours = (n: number) => n * 3600_000;
const days = (n: number) => n * 24 * 3600_000;

/** Kept until a module deletes it. */
const untilDeleted = undefined;

type Lifetime = number | typeof untilDeleted | ((ms: number) => number);
type Builders = Record<string, (...args: never[]) => string>;

/** A kind of key. Each builder returns what follows the prefix; the kind puts the prefix before it. */
function kind<const B extends Builders, const L extends Lifetime>(
  prefix: string,
  ttlMs: L,
  holds: string,
  builders: B,
): { prefix: string; ttlMs: L; holds: string } & B {
  const prefixed = Object.fromEntries(
    Object.entries(builders).map(([name, build]) => [name, (...args: never[]) => prefix + build(...args)]),
  );
  return { prefix, ttlMs, holds, ...(prefixed as B) };
}

/** A person as the keys name them: the Slack org (or workspace) and the user. */
interface PersonKey {
  workspaceId: string;
  userId: string;
}
const person = (p: PersonKey) => `${p.workspaceId}:${p.userId}`;

export const keys = {
  // Logins
  session: kind(
    'session:',
    (sessionLeftMs: number) => sessionLeftMs,
    "A person's company session, encrypted; it is worthless once the platform session has expired.",
    { key: person },
  ),
  team: kind(
    'team:',
    untilDeleted,
    "The team a person selected: remembered across logins, used only while it is one of the session's teams.",
    { key: person },
  ),
  reader: kind(
    'reader:',
    (sessionLeftMs: number) => sessionLeftMs,
    'Who can read a team, for the poller to fall back on: as long as the session that gives them the team.',
    { key: (teamId: string, p: PersonKey) => `${teamId}:${person(p)}`, ofTeam: (teamId: string) => `${teamId}:` },
  ),
  loginLink: kind(
    'login-link:',
    minutes(10),
    "A one-time login link's hash and person; a link is valid for ten minutes.",
    { key: (hash: string) => hash },
  ),
  loginLinkOpened: kind(
    'login-link-opened:',
    (linkLeftMs: number) => linkLeftMs,
    'The first browser to open a login link won it: as long as the link itself is valid.',
    { key: (hash: string) => hash },
  ),
  ssoLogin: kind(
    'sso-login:',
    minutes(10),
    "A single sign-on a login link's browser started, under the hash of the platform's state: as long as the state is valid.",
    { key: (stateHash: string) => stateHash },
  ),
  ssoLoginUsed: kind(
    'sso-login-used:',
    minutes(10),
    "A single sign-on's callback was taken, so a replay of it stores nothing: as long as its state was valid.",
    { key: (stateHash: string) => stateHash },
  ),
  loginAttempt: kind(
    'login-attempt:',
    30_000,
    'One login attempt per person at a time: a little longer than a platform call may take (10 s).',
    { key: person },
  ),
  loginFailures: kind(
    'login-failures:',
    minutes(15),
    "A counter of a person's failed logins: the window they are counted in.",
    { key: person },
  ),
  loginFailuresByAddress: kind(
    'login-failures-address:',
    minutes(15),
    'A counter of the failed logins from an address: the window they are counted in.',
    { key: (address: string) => address },
  ),
  loginBadLinks: kind(
    'login-bad-links:',
    minutes(15),
    'A counter of the unusable login links an address opened: the window they are counted in.',
    { key: (address: string) => address },
  ),
  resetsByPerson: kind(
    'password-resets:',
    hours(1),
    'A counter of the reset e-mails a person asked for: the window they are counted in.',
    { key: person },
  ),
  resetsByEmail: kind(
    'password-resets-email:',
    hours(1),
    'A counter of the reset e-mails asked for one address (its hash): the window they are counted in.',
    { key: (emailHash: string) => emailHash },
  ),
  loginLinkProfile: kind(
    'login-link-profile:',
    (linkLeftMs: number) => linkLeftMs,
    "The Slack profile (name, handle, e-mail) of a login link's person, read once for the link: as long as the link.",
    { key: (hash: string) => hash },
  ),
  loginPageLoads: kind(
    'login-page-loads:',
    minutes(10),
    "A counter of the times a login link's page was loaded: the link's lifetime.",
    { key: (hash: string) => hash },
  ),
  ssoStarts: kind(
    'sso-starts:',
    minutes(10),
    "A counter of the single sign-ons a login link started: the link's lifetime.",
    { key: (hash: string) => hash },
  ),
  loginPageLoadsByAddress: kind(
    'login-page-loads-address:',
    minutes(15),
    'A counter of the login pages an address loaded: the window they are counted in.',
    { key: (address: string) => address },
  ),
  ssoStartsByAddress: kind(
    'sso-starts-address:',
    minutes(15),
    'A counter of the single sign-ons an address started: the window they are counted in.',
    { key: (address: string) => address },
  ),
  addressOverLimit: kind(
    'login-address-over:',
    minutes(15),
    "A counter of what a person did from an address past one of the address's limits (it allows one each): the limit's window.",
    { key: (limit: string, address: string, p: PersonKey) => `${limit}:${address}:${person(p)}` },
  ),
  expiryWarned: kind(
    'expiry-warned:',
    (sessionLeftMs: number) => sessionLeftMs + 60_000,
    'A person was warned that their session is about to expire: a little past that expiry, so once.',
    { key: (owner: string, expiresAt: number) => `${owner}:${expiresAt}` },
  ),

  // Starting attacks
  pending: kind(
    'pending:',
    minutes(15),
    'An attack previewed and waiting for Start: a preview older than this is stale.',
    { key: (id: string) => id },
  ),
  start: kind(
    'start:',
    minutes(15),
    'A preview was started, so a second click never starts it twice: as long as the preview.',
    { key: (id: string) => id },
  ),
  startIntent: kind(
    'start-intent:',
    hours(24),
    'A start the bot has promised, for a restarted bot to finish: one nobody could finish in a day is dropped.',
    { key: (id: string) => id },
  ),
  startLease: kind(
    'start-lease:',
    8_000,
    'Whoever works on a start, renewed while it works: one whose bot died is free to finish once it lapses.',
    { key: (id: string) => id },
  ),
  delivery: kind(
    'delivery:',
    minutes(10),
    "A request that changes something was done: longer than Slack's signature on it holds (5 minutes), so a replay or a second delivery does nothing.",
    { key: (delivery: string) => delivery },
  ),
  stepRun: kind(
    'step-run:',
    days(1),
    "A workflow step's execution was taken once: Slack redelivers function_executed, and a step acts and completes once.",
    { key: (executionId: string) => executionId },
  ),
  stepOpen: kind(
    'step-open:',
    days(1),
    'A workflow step run under way, who ran it and with what: one a stopped bot left is finished by a restarted one.',
    { key: (executionId: string) => executionId },
  ),
  stepLease: kind(
    'step-lease:',
    8_000,
    'Whoever works on a step run, renewed while it works: one whose bot died is free to finish once it lapses.',
    { key: (executionId: string) => executionId },
  ),
  stepStarted: kind(
    'step-started:',
    days(1),
    'The attack a Run saved attack step started, kept from its start until its step is finished.',
    { key: (executionId: string) => executionId },
  ),
  stepWait: kind(
    'step-wait:',
    days(2),
    "A workflow step waiting for an attack's end: completed with its final stage when the attack ends.",
    { key: (guid: string) => guid },
  ),
  stepWaitDone: kind(
    'step-wait-done:',
    hours(1),
    'A waiting step was completed once: replicas that see the same end leave it alone.',
    { key: (guid: string) => guid },
  ),

  // Attack cards
  card: kind(
    'card:',
    days(30),
    "An attack's card: kept a month after it is posted, for tickets and game-day summaries.",
    { key: (guid: string) => guid },
  ),
  cardMessage: kind('card-message:', days(30), 'Which attack a card message shows: as long as the card.', {
    key: (channel: string, ts: string) => `${channel}:${ts}`,
  }),
  cardStarting: kind(
    'card-starting:',
    minutes(5),
    'A start from Slack is under way in a team: its create and its card are done well within five minutes.',
    { key: (teamId: string, startId: string) => `${teamId}:${startId}`, ofTeam: (teamId: string) => `${teamId}:` },
  ),
  live: kind(
    'live:',
    days(30),
    'One live attack and the state its card shows, for the poller to walk after a restart and to pass over cards that did not change: deleted when it ends, and never longer than its card.',
    { key: (teamId: string, guid: string) => `${teamId}:${guid}` },
  ),
  unsentUpdate: kind(
    'unsent-update:',
    hours(24),
    'A card whose last update did not reach Slack before a replica stopped: a day, after which polls redrew it.',
    { key: (channel: string, ts: string) => `${channel}:${ts}` },
  ),
  haltNoted: kind(
    'halt-noted:',
    hours(24),
    "A person's halt was told in the card's thread once, however often they click: a day, longer than any halt takes.",
    { key: (guid: string, userId: string) => `${guid}:${userId}` },
  ),
  haltCheck: kind(
    'halt-check:',
    hours(24),
    'A halt whose targets are read until every one has stopped: deleted then; a day, long after anyone acts on it.',
    { key: (guid: string) => guid },
  ),
  presence: kind(
    'presence:',
    days(30),
    'When the attendant of a live attack was last asked whether they still watch it, and whether they answered: as long as its card.',
    { key: (guid: string) => guid },
  ),
  noteLock: kind(
    'note-lock:',
    15_000,
    'One note at a time per attack (the platform replaces the whole map): longer than saving one takes.',
    { key: (guid: string) => guid },
  ),
  listPage: kind(
    'list-page:',
    hours(24),
    'A list of attacks a person may still page through: Slack forgets ephemeral messages sooner.',
    { key: (listId: string) => listId },
  ),
  ticketDraft: kind('ticket-draft:', hours(2), 'A ticket form being filled in: longer than anyone keeps a form open.', {
    key: (id: string) => id,
  }),
  ticketFiled: kind(
    'ticket-filed:',
    hours(2),
    'A ticket form was submitted, so a second submission files nothing twice: as long as the draft.',
    { key: (id: string) => id },
  ),

  // Watches and the poller
  watch: kind(
    'watch:',
    untilDeleted,
    'A channel watching a team for attacks started elsewhere: until someone stops it.',
    { key: (teamId: string, channel: string) => `${teamId}:${channel}` },
  ),
  watchCard: kind(
    'watch-card:',
    days(30),
    'A watched channel has (or is posting) a card of an attack, so it gets one only: as long as a card.',
    { key: (channel: string, guid: string) => `${channel}:${guid}` },
  ),
  watchPaused: kind(
    'watch-paused:',
    days(30),
    'A paused watch was told in its channel once per renewal: a month, like the cards.',
    {
      key: (teamId: string, channel: string, renewedAt: string) => `${teamId}:${channel}:${renewedAt}`,
    },
  ),
  poll: kind(
    'poll:',
    (intervalMs: number) => intervalMs * 2,
    "The replica polling a team: two passes, so a dead replica's teams are taken over soon.",
    { key: (teamId: string) => teamId },
  ),
  job: kind(
    'job:',
    (everyMs: number) => everyMs * 2,
    "The replica running a background job: two of the job's beats, so a dead replica's job is taken over soon.",
    { key: (name: string) => name },
  ),

  // Guardrails
  approval: kind(
    'approval:',
    hours(24),
    'A start waiting for a second person: deleted when answered; a day covers the wait and the close of one expired.',
    { key: (id: string) => id },
  ),
  approvalMessage: kind(
    'approval-message:',
    hours(24),
    'Where an approval request was posted; apart, so saving it never revives a closed request: as long as it.',
    { key: (id: string) => id },
  ),
  approvalClosed: kind(
    'approval-closed:',
    hours(24),
    'How an approval request was closed, for a click that comes after: as long as the request.',
    { key: (id: string) => id },
  ),
  approvalDecided: kind(
    'approval-decided:',
    hours(24),
    'An approval request was answered, by one person only: as long as the request.',
    { key: (id: string) => id },
  ),
  freeze: kind('freeze:', untilDeleted, 'A freeze on every team or on one: until someone lifts it.', {
    key: (scope: 'all' | 'team', teamId?: string) => (scope === 'all' ? 'all' : `team:${teamId}`),
  }),
  freezeNotice: kind(
    'freeze-notice:',
    hours(24),
    'A freeze told its channel about one cause: a day, so a freeze that stands is not told again and again.',
    {
      key: (scope: string, teamId: string | undefined, since: string, cause: string) =>
        `${scope}:${teamId ?? ''}:${since}:${cause}`,
    },
  ),
  freezeOrphaned: kind(
    'freeze-orphaned:',
    hours(24),
    'A freeze nobody can enforce was told once: for a day, like the other notices.',
    { key: (scope: string, teamId: string | undefined, since: string) => `${scope}:${teamId ?? ''}:${since}` },
  ),
  freezeSweep: kind(
    'freeze-sweep:',
    (intervalMs: number) => intervalMs * 2,
    "The replica enforcing freezes on a team: two passes, so a dead replica's teams are taken over soon.",
    { key: (teamId: string) => teamId },
  ),
  freezeHalted: kind(
    'freeze-halted:',
    minutes(10),
    'A freeze is halting an attack, so replicas halt it once: longer than a halt takes, short enough to try again.',
    { key: (guid: string) => guid },
  ),
  attackGuards: kind(
    'guards:attack:',
    days(30),
    "An attack's guards with what halting it needs: as long as its card.",
    { key: (guid: string) => guid },
  ),
  gameDayGuard: kind(
    'guards:gameday:',
    days(30),
    "A game day's guard, one key each (`list` is the one list kept before that): as long as an ended game day.",
    {
      key: (gameDayId: string, guard: string) => `${gameDayId}:${guard}`,
      ofGameDay: (gameDayId: string) => `${gameDayId}:`,
      list: (gameDayId: string) => gameDayId,
    },
  ),
  guardReading: kind(
    'guard-reading:',
    hours(24),
    "A guard's last reading, for the cards and Home to show: a day, far longer than between two readings.",
    { key: (guard: string) => guard },
  ),
  guardRead: kind(
    'guard-read:',
    (intervalMs: number) => intervalMs * 2,
    'The replica reading a guard: two passes, so a dead replica hands it on soon.',
    { key: (guard: string) => guard },
  ),
  guardTrip: kind(
    'guard-trip:',
    hours(24),
    'A tripped guard is halting an attack, on one replica only: a day, longer than any halt takes.',
    { key: (guard: string, guid: string) => `${guard}:${guid}` },
  ),

  // Game days
  gameDay: kind('gameday:', untilDeleted, "A channel's running game day: until it is ended.", {
    key: (channel: string) => channel,
  }),
  gameDayStart: kind(
    'gameday-start:',
    minutes(1),
    'A game day is being started in a channel, by one person only: longer than posting its card takes.',
    { key: (channel: string) => channel },
  ),
  gameDayEvent: kind(
    'gameday-event:',
    days(30),
    "One event of a game day, one key each so replicas never overwrite each other's: as long as an ended game day.",
    {
      key: (gameDayId: string, at: string, id: string) => `${gameDayId}:${at}:${id}`,
      ofGameDay: (id: string) => `${id}:`,
    },
  ),
  gameDayAttack: kind(
    'gameday-attack:',
    days(30),
    'Which game day an attack belongs to, for when it ends: as long as an ended game day.',
    { key: (guid: string) => guid },
  ),
  gameDayGuardsShown: kind(
    'gameday-guards-shown:',
    days(30),
    "What a game day's card shows of its guards, so it is redrawn when that changes: as long as the game day.",
    { key: (gameDayId: string) => gameDayId },
  ),
  gameDayEnd: kind(
    'gameday-end:',
    days(30),
    'A game day was ended, by one person only: as long as an ended game day.',
    { key: (gameDayId: string) => gameDayId },
  ),
  gameDayEnded: kind('gameday-ended:', days(30), "An ended game day, for its summary's File ticket button: a month.", {
    key: (channel: string, ts: string) => `${channel}:${ts}`,
    ofChannel: (channel: string) => `${channel}:`,
  }),
  gameDayFailed: kind(
    'gameday-failed:',
    days(30),
    "A failed attack was told in its game day's timeline once: as long as an ended game day.",
    { key: (guid: string) => guid },
  ),

  // Saved attacks
  savedAttack: kind(
    'saved-attack:',
    untilDeleted,
    "A team's saved attack, by its name in lower case: until someone deletes it.",
    { key: (teamId: string, name: string) => `${teamId}:${name}`, ofTeam: (teamId: string) => `${teamId}:` },
  ),
  savedAttackLock: kind(
    'saved-attack-lock:',
    10_000,
    'A name is being saved or deleted in a team, by one person only: longer than checking and writing it takes.',
    { key: (teamId: string, name: string) => `${teamId}:${name}` },
  ),
  savedAttackVersion: kind(
    'saved-attack-version:',
    untilDeleted,
    "The last version number a team's saved attack name was given: kept past a delete, so a name saved again is a new version, never version 1 again.",
    { key: (teamId: string, name: string) => `${teamId}:${name}` },
  ),
  savedAttackSeen: kind(
    'saved-attack-seen:',
    days(90),
    "The last version of a team's saved attack a person saw (previewed, saved or ran), which they may start without a preview: renewed by each run, so a schedule that runs it keeps it.",
    { key: (teamId: string, name: string, p: PersonKey) => `${teamId}:${name}:${person(p)}` },
  ),
  // Game-day plans
  gamedayPlan: kind(
    'gameday-plan:',
    days(30),
    "A game day's plan (under its id), or one drafted in a channel before it starts (`draft:<channel>`): a month, as long as an ended game day.",
    { key: (plan: string) => plan },
  ),
  gamedayPlanLock: kind(
    'gameday-plan-lock:',
    15_000,
    'One change to a plan at a time: longer than reading and writing it takes.',
    { key: (plan: string) => plan },
  ),
  gamedayStepAttack: kind(
    'gameday-step-attack:',
    days(30),
    'Which plan step an attack runs, for when it ends: as long as an ended game day.',
    { key: (guid: string) => guid },
  ),
  gamedayStepQuestion: kind(
    'gameday-step-question:',
    days(30),
    "A step's hypothesis question was asked once: as long as an ended game day.",
    { key: (stepId: string) => stepId },
  ),
  gamedayStepAnswer: kind(
    'gameday-step-answer:',
    days(30),
    "A step's hypothesis was answered, by one person only: as long as an ended game day.",
    { key: (stepId: string) => stepId },
  ),
} as const;
