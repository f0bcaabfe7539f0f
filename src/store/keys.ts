/**
 * Every kind of key kept in the store: its prefix, how its keys are built, how long they live and
 * what they hold. Modules build their keys and take their lifetimes from here, and nowhere else.
 * Stored data outlives a release: a prefix or the shape of a key never changes, or what is kept
 * under the old one is lost.
 *
 * A lifetime (`ttlMs`) is a number of milliseconds, `untilDeleted`, or a rule that computes it
 * from what the caller knows when it writes (a lease's cadence, the session a key belongs to).
 *
 * One kind a row: `name: kind(prefix, lifetime, builders,` then, on the next line, what it holds
 * and why it lives that long. The table is laid out by hand, so that it reads as one.
 */

const minutes = (n: number) => n * 60_000;
const hours = (n: number) => n * 3600_000;
const days = (n: number) => n * 24 * 3600_000;

/** Kept until a module deletes it. */
const untilDeleted = undefined;

/** As long as the session (or link) a key belongs to: the caller says how long that is left. */
const sessionLeft = (sessionLeftMs: number) => sessionLeftMs;
const linkLeft = (linkLeftMs: number) => linkLeftMs;
/** Two passes of a repeating pass, so a dead replica's share is taken over soon. */
const twoPasses = (intervalMs: number) => intervalMs * 2;

type Lifetime = number | typeof untilDeleted | ((ms: number) => number);
type Builders = Record<string, (...args: never[]) => string>;

/** A kind of key. Each builder returns what follows the prefix; the kind puts the prefix before it. */
function kind<const B extends Builders, const L extends Lifetime>(
  prefix: string,
  ttlMs: L,
  builders: B,
  holds: string,
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
const ofTeam = (teamId: string) => `${teamId}:`;

// biome-ignore format: one kind a row, laid out by hand (see above)
export const keys = {
  // Logins
  session: kind('session:', sessionLeft, { key: person },
    "A person's company session, encrypted; it is worthless once the platform session has expired."),
  team: kind('team:', untilDeleted, { key: person },
    "The team a person selected: remembered across logins, used only while it is one of the session's teams."),
  reader: kind('reader:', sessionLeft, { key: (teamId: string, p: PersonKey) => `${teamId}:${person(p)}`, ofTeam },
    'Who can read a team, for the poller to fall back on: as long as the session that gives them the team.'),
  loginLink: kind('login-link:', minutes(10), { key: (hash: string) => hash },
    "A one-time login link's hash and person; a link is valid for ten minutes."),
  loginModal: kind('login-modal:', minutes(10), { key: person },
    'The login window a person opened last, to show there that the secure page or SSO logged them in: as long as its link.'),
  loginLinkOpened: kind('login-link-opened:', linkLeft, { key: (hash: string) => hash },
    'The first browser to open a login link won it: as long as the link itself is valid.'),
  ssoLogin: kind('sso-login:', minutes(10), { key: (stateHash: string) => stateHash },
    "A single sign-on a login link's browser started, under the hash of the platform's state: as long as the state is valid."),
  ssoLoginUsed: kind('sso-login-used:', minutes(10), { key: (stateHash: string) => stateHash },
    "A single sign-on's callback was taken, so a replay of it stores nothing: as long as its state was valid."),
  loginAttempt: kind('login-attempt:', 30_000, { key: person },
    'One login attempt per person at a time: a little longer than a platform call may take (10 s).'),
  loginFailures: kind('login-failures:', minutes(15), { key: person },
    "A counter of a person's failed logins: the window they are counted in."),
  loginFailuresByAddress: kind('login-failures-address:', minutes(15), { key: (address: string) => address },
    'A counter of the failed logins from an address: the window they are counted in.'),
  loginBadLinks: kind('login-bad-links:', minutes(15), { key: (address: string) => address },
    'A counter of the unusable login links an address opened: the window they are counted in.'),
  resetsByPerson: kind('password-resets:', hours(1), { key: person },
    'A counter of the reset e-mails a person asked for: the window they are counted in.'),
  resetsByEmail: kind('password-resets-email:', hours(1), { key: (emailHash: string) => emailHash },
    'A counter of the reset e-mails asked for one address (its hash): the window they are counted in.'),
  loginLinkProfile: kind('login-link-profile:', linkLeft, { key: (hash: string) => hash },
    "The Slack profile (name, handle, e-mail) of a login link's person, read once for the link: as long as the link."),
  loginPageLoads: kind('login-page-loads:', minutes(10), { key: (hash: string) => hash },
    "A counter of the times a login link's page was loaded: the link's lifetime."),
  ssoStarts: kind('sso-starts:', minutes(10), { key: (hash: string) => hash },
    "A counter of the single sign-ons a login link started: the link's lifetime."),
  loginPageLoadsByAddress: kind('login-page-loads-address:', minutes(15), { key: (address: string) => address },
    'A counter of the login pages an address loaded: the window they are counted in.'),
  ssoStartsByAddress: kind('sso-starts-address:', minutes(15), { key: (address: string) => address },
    'A counter of the single sign-ons an address started: the window they are counted in.'),
  addressOverLimit: kind('login-address-over:', minutes(15), { key: (limit: string, address: string, p: PersonKey) => `${limit}:${address}:${person(p)}` },
    "A counter of what a person did from an address past one of the address's limits (it allows one each): the limit's window."),
  expiryWarned: kind('expiry-warned:', (sessionLeftMs: number) => sessionLeftMs + 60_000, { key: (owner: string, expiresAt: number) => `${owner}:${expiresAt}` },
    'A person was warned that their session is about to expire: a little past that expiry, so once.'),
  // Starting attacks
  pending: kind('pending:', minutes(15), { key: (id: string) => id },
    'An attack previewed and waiting for Start: a preview older than this is stale.'),
  start: kind('start:', minutes(15), { key: (id: string) => id },
    'A preview was started, so a second click never starts it twice: as long as the preview.'),
  startIntent: kind('start-intent:', hours(24), { key: (id: string) => id },
    'A start the bot has promised, for a restarted bot to finish: one nobody could finish in a day is dropped.'),
  startLease: kind('start-lease:', 8_000, { key: (id: string) => id },
    'Whoever works on a start, renewed while it works: one whose bot died is free to finish once it lapses.'),
  delivery: kind('delivery:', minutes(10), { key: (delivery: string) => delivery },
    "A request that changes something was done: longer than Slack's signature on it holds (5 minutes), so a replay or a second delivery does nothing."),
  stepRun: kind('step-run:', days(1), { key: (executionId: string) => executionId },
    "A workflow step's execution was taken once: Slack redelivers function_executed, and a step acts and completes once."),
  stepOpen: kind('step-open:', days(1), { key: (executionId: string) => executionId },
    'A workflow step run under way, who ran it and with what: one a stopped bot left is finished by a restarted one.'),
  stepLease: kind('step-lease:', 8_000, { key: (executionId: string) => executionId },
    'Whoever works on a step run, renewed while it works: one whose bot died is free to finish once it lapses.'),
  stepStarted: kind('step-started:', days(1), { key: (executionId: string) => executionId },
    'The attack a Run saved attack step started, kept from its start until its step is finished.'),
  stepWait: kind('step-wait:', days(2), { key: (guid: string) => guid },
    "A workflow step waiting for an attack's end: completed with its final stage when the attack ends."),
  stepWaitDone: kind('step-wait-done:', hours(1), { key: (guid: string) => guid },
    'A waiting step was completed once: replicas that see the same end leave it alone.'),
  // Attack cards
  card: kind('card:', days(30), { key: (guid: string) => guid },
    "An attack's card: kept a month after it is posted, for tickets and game-day summaries."),
  cardMessage: kind('card-message:', days(30), { key: (channel: string, ts: string) => `${channel}:${ts}` },
    'Which attack a card message shows: as long as the card.'),
  cardStarting: kind('card-starting:', minutes(5), { key: (teamId: string, startId: string) => `${teamId}:${startId}`, ofTeam },
    'A start from Slack is under way in a team: its create and its card are done well within five minutes.'),
  live: kind('live:', days(30), { key: (teamId: string, guid: string) => `${teamId}:${guid}` },
    'One live attack and the state its card shows, for the poller to walk after a restart and to pass over cards that did not change: deleted when it ends, and never longer than its card.'),
  unsentUpdate: kind('unsent-update:', hours(24), { key: (channel: string, ts: string) => `${channel}:${ts}` },
    'A card whose last update did not reach Slack before a replica stopped: a day, after which polls redrew it.'),
  haltNoted: kind('halt-noted:', hours(24), { key: (guid: string, userId: string) => `${guid}:${userId}` },
    "A person's halt was told in the card's thread once, however often they click: a day, longer than any halt takes."),
  haltCheck: kind('halt-check:', hours(24), { key: (guid: string) => guid },
    'A halt whose targets are read until every one has stopped: deleted then; a day, long after anyone acts on it.'),
  homeHalt: kind('home-halt:', minutes(30), { key: (userId: string, guid: string) => `${userId}:${guid}` },
    "An attack halted from a person's App Home, whose end redraws it there: half an hour, longer than a halt takes to land."),
  haltReceipt: kind('halt-receipt:', days(30), { key: (teamId: string, guid: string) => `${teamId}:${guid}`, ofTeam },
    "A verified halt's times, target by target, for the team's list of halts: a month, like the cards."),
  presence: kind('presence:', days(30), { key: (guid: string) => guid },
    'When the attendant of a live attack was last asked whether they still watch it, and whether they answered: as long as its card.'),
  noteLock: kind('note-lock:', 15_000, { key: (guid: string) => guid },
    'One note at a time per attack (the platform replaces the whole map): longer than saving one takes.'),
  listPage: kind('list-page:', hours(24), { key: (listId: string) => listId },
    'A list of attacks a person may still page through: Slack forgets ephemeral messages sooner.'),
  ticketDraft: kind('ticket-draft:', hours(2), { key: (id: string) => id },
    'A ticket form being filled in: longer than anyone keeps a form open.'),
  ticketFiled: kind('ticket-filed:', hours(2), { key: (id: string) => id },
    'A ticket form was submitted, so a second submission files nothing twice: as long as the draft.'),
  // Watches and the poller
  watch: kind('watch:', untilDeleted, { key: (teamId: string, channel: string) => `${teamId}:${channel}` },
    'A channel watching a team for attacks started elsewhere: until someone stops it.'),
  watchCard: kind('watch-card:', days(30), { key: (channel: string, guid: string) => `${channel}:${guid}` },
    'A watched channel has (or is posting) a card of an attack, so it gets one only: as long as a card.'),
  watchPaused: kind('watch-paused:', days(30), { key: (teamId: string, channel: string, renewedAt: string) => `${teamId}:${channel}:${renewedAt}` },
    'A paused watch was told in its channel once per renewal: a month, like the cards.'),
  poll: kind('poll:', twoPasses, { key: (teamId: string) => teamId },
    "The replica polling a team: two passes, so a dead replica's teams are taken over soon."),
  job: kind('job:', twoPasses, { key: (name: string) => name },
    "The replica running a background job: two of the job's beats, so a dead replica's job is taken over soon."),
  // Guardrails
  approval: kind('approval:', hours(24), { key: (id: string) => id },
    'A start waiting for a second person: deleted when answered; a day covers the wait and the close of one expired.'),
  approvalMessage: kind('approval-message:', hours(24), { key: (id: string) => id },
    'Where an approval request was posted; apart, so saving it never revives a closed request: as long as it.'),
  approvalClosed: kind('approval-closed:', hours(24), { key: (id: string) => id },
    'How an approval request was closed, for a click that comes after: as long as the request.'),
  approvalDecided: kind('approval-decided:', hours(24), { key: (id: string) => id },
    'An approval request was answered, by one person only: as long as the request.'),
  freeze: kind('freeze:', untilDeleted, { key: (scope: 'all' | 'team', teamId?: string) => (scope === 'all' ? 'all' : `team:${teamId}`) },
    'A freeze on every team or on one: until someone lifts it.'),
  freezeNotice: kind('freeze-notice:', hours(24), { key: (scope: string, teamId: string | undefined, since: string, cause: string) => `${scope}:${teamId ?? ''}:${since}:${cause}` },
    'A freeze told its channel about one cause: a day, so a freeze that stands is not told again and again.'),
  freezeOrphaned: kind('freeze-orphaned:', hours(24), { key: (scope: string, teamId: string | undefined, since: string) => `${scope}:${teamId ?? ''}:${since}` },
    'A freeze nobody can enforce was told once: for a day, like the other notices.'),
  freezeSweep: kind('freeze-sweep:', twoPasses, { key: (teamId: string) => teamId },
    "The replica enforcing freezes on a team: two passes, so a dead replica's teams are taken over soon."),
  freezeHalted: kind('freeze-halted:', minutes(10), { key: (guid: string) => guid },
    'A freeze is halting an attack, so replicas halt it once: longer than a halt takes, short enough to try again.'),
  attackGuards: kind('guards:attack:', days(30), { key: (guid: string) => guid },
    "An attack's guards with what halting it needs: as long as its card."),
  gameDayGuard: kind('guards:gameday:', days(30), { key: (gameDayId: string, guard: string) => `${gameDayId}:${guard}`, ofGameDay: (gameDayId: string) => `${gameDayId}:`, list: (gameDayId: string) => gameDayId },
    "A game day's guard, one key each (`list` is the one list kept before that): as long as an ended game day."),
  guardReading: kind('guard-reading:', hours(24), { key: (guard: string) => guard },
    "A guard's last reading, for the cards and Home to show: a day, far longer than between two readings."),
  guardRead: kind('guard-read:', twoPasses, { key: (guard: string) => guard },
    'The replica reading a guard: two passes, so a dead replica hands it on soon.'),
  guardTrip: kind('guard-trip:', hours(24), { key: (guard: string, guid: string) => `${guard}:${guid}` },
    'A tripped guard is halting an attack, on one replica only: a day, longer than any halt takes.'),
  // Game days
  gameDay: kind('gameday:', untilDeleted, { key: (channel: string) => channel },
    "A channel's running game day: until it is ended."),
  gameDayStart: kind('gameday-start:', minutes(1), { key: (channel: string) => channel },
    'A game day is being started in a channel, by one person only: longer than posting its card takes.'),
  gameDayEvent: kind('gameday-event:', days(30), { key: (gameDayId: string, at: string, id: string) => `${gameDayId}:${at}:${id}`, ofGameDay: (id: string) => `${id}:` },
    "One event of a game day, one key each so replicas never overwrite each other's: as long as an ended game day."),
  gameDayAttack: kind('gameday-attack:', days(30), { key: (guid: string) => guid },
    'Which game day an attack belongs to, for when it ends: as long as an ended game day.'),
  gameDayGuardsShown: kind('gameday-guards-shown:', days(30), { key: (gameDayId: string) => gameDayId },
    "What a game day's card shows of its guards, so it is redrawn when that changes: as long as the game day."),
  gameDayEnd: kind('gameday-end:', days(30), { key: (gameDayId: string) => gameDayId },
    'A game day was ended, by one person only: as long as an ended game day.'),
  gameDayEnded: kind('gameday-ended:', days(30), { key: (channel: string, ts: string) => `${channel}:${ts}`, ofChannel: (channel: string) => `${channel}:` },
    "An ended game day, for its summary's File ticket button: a month."),
  gameDayReportDue: kind('gameday-report-due:', hours(24), { key: (gameDayId: string) => gameDayId },
    'A game day ended by Halt all and end, whose report is made once its halts have landed (five minutes at most): a day, long after.'),
  gameDayFailed: kind('gameday-failed:', days(30), { key: (guid: string) => guid },
    "A failed attack was told in its game day's timeline once: as long as an ended game day."),
  // Saved attacks
  savedAttack: kind('saved-attack:', untilDeleted, { key: (teamId: string, name: string) => `${teamId}:${name}`, ofTeam },
    "A team's saved attack, by its name in lower case: until someone deletes it."),
  savedAttackLock: kind('saved-attack-lock:', 10_000, { key: (teamId: string, name: string) => `${teamId}:${name}` },
    'A name is being saved or deleted in a team, by one person only: longer than checking and writing it takes.'),
  savedAttackVersion: kind('saved-attack-version:', untilDeleted, { key: (teamId: string, name: string) => `${teamId}:${name}` },
    "The last version number a team's saved attack name was given: kept past a delete, so a name saved again is a new version, never version 1 again."),
  savedAttackSeen: kind('saved-attack-seen:', days(90), { key: (teamId: string, name: string, p: PersonKey) => `${teamId}:${name}:${person(p)}` },
    "The last version of a team's saved attack a person saw (previewed, saved or ran), which they may start without a preview: renewed by each run, so a schedule that runs it keeps it."),
  // Game-day plans
  gamedayPlan: kind('gameday-plan:', days(30), { key: (plan: string) => plan },
    "A game day's plan (under its id), or one drafted in a channel before it starts (`draft:<channel>`): a month, as long as an ended game day."),
  gamedayPlanLock: kind('gameday-plan-lock:', 15_000, { key: (plan: string) => plan },
    'One change to a plan at a time: longer than reading and writing it takes.'),
  gamedayStepAttack: kind('gameday-step-attack:', days(30), { key: (guid: string) => guid },
    'Which plan step an attack runs, for when it ends: as long as an ended game day.'),
  gamedayStepQuestion: kind('gameday-step-question:', days(30), { key: (stepId: string) => stepId },
    "A step's hypothesis question was asked once: as long as an ended game day."),
  gamedayStepAnswer: kind('gameday-step-answer:', days(30), { key: (stepId: string) => stepId },
    "A step's hypothesis was answered, by one person only: as long as an ended game day."),
  // Slackbot (MCP)
  mcpRequest: kind('mcp-request:', minutes(10), { key: (signature: string) => signature },
    "A signed request from Slackbot was taken once: longer than its signature's five minutes either way, so one sent again is refused."),
  mcpCalls: kind('mcp-calls:', minutes(1), { key: person },
    "How many tools a person called through Slackbot this minute: the window of the per-person limit."),
} as const;
