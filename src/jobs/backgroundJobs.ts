import type { Services } from '../services.ts';
import type { Job } from './scheduler.ts';

/**
 * Everything Faultline does on its own, each job on its own timer and lease (see Scheduler). A
 * pass run by hand (Scheduler.runNow) takes them in this order, so the cards are refreshed last
 * and show what the other jobs did.
 */
export function backgroundJobs({ attacks, guardrails, gamedays, login, workflow, homes }: Services): Job[] {
  const pollMs = attacks.settings.pollSeconds * 1000;
  return [
    {
      name: 'recover-starts',
      everyMs: pollMs,
      // A start a killed bot left half done is finished as soon as a bot runs again: its starter waits.
      atStart: true,
      // Each start under way has its own lease (start-lease:), so every replica may look.
      ownLeases: true,
      run: () => attacks.recoverStarts(guardrails.closeAfterRestart),
    },
    {
      name: 'recover-steps',
      everyMs: pollMs,
      // A workflow hangs on a step a killed bot left running: it is finished as soon as a bot runs again.
      atStart: true,
      // Each step run has its own lease (step-lease:), so every replica may look.
      ownLeases: true,
      run: () => workflow.recoverRuns(),
    },
    // Cards a stopped replica left unsent are current again within one POLL_SECONDS, like the others.
    { name: 'redraw-unsent-cards', everyMs: pollMs, run: attacks.redrawUnsent },
    // The warning comes ten minutes ahead: a minute late still leaves nine, and each run reads every live card.
    {
      name: 'warn-expiring-sessions',
      everyMs: Math.max(pollMs, 60_000),
      run: (breathe) => login.warnExpiringSessions(breathe),
    },
    // A freeze halts an attack started elsewhere within one POLL_SECONDS.
    { name: 'enforce-freezes', everyMs: pollMs, run: () => guardrails.enforceFreezes() },
    // Each guard is read once per POLL_SECONDS, so it halts within one of firing.
    { name: 'enforce-guards', everyMs: pollMs, run: (breathe) => guardrails.enforceGuards(breathe) },
    // A countdown starts its step within a few seconds of zero, however long POLL_SECONDS is; a
    // countdown kept in the store outlives a restart, and the first pass after it starts what is due.
    { name: 'run-plans', everyMs: Math.min(pollMs, 5_000), atStart: true, run: () => gamedays.runPlans() },
    // One executions read per halted attack per POLL_SECONDS, until every target has stopped.
    { name: 'verify-halts', everyMs: pollMs, run: attacks.verifyHalts },
    // "Still watching?" is asked every PRESENCE_MINUTES; an unanswered one halts within one POLL_SECONDS of its five minutes.
    { name: 'check-presence', everyMs: pollMs, run: attacks.checkPresence },
    // A request lasts fifteen minutes: ending it within a minute of that is enough, and each run reads every request.
    { name: 'expire-approvals', everyMs: Math.max(pollMs, 60_000), run: () => guardrails.expireApprovals() },
    // A halt lands within seconds: Home shows where it led within one POLL_SECONDS of the end.
    { name: 'follow-home-halts', everyMs: pollMs, run: () => homes.followHalts() },
    {
      name: 'refresh-cards',
      everyMs: pollMs,
      // Each team is leased on its own, so replicas share the teams between them.
      ownLeases: true,
      run: attacks.refreshCards,
      stop: attacks.stopRefreshing,
    },
  ];
}
