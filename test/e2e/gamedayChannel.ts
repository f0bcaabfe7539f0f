import { Stack } from './harness.ts';

/** What a person reads, italics marks removed too (hypotheses are in italics). */
export const readPlain = (surface: { text(): string } | undefined) =>
  Stack.read(surface).replace(/(?<!\w)_|_(?!\w)/g, '');

/**
 * A game day's channel as its tests read it and click in it: the game-day card, the countdown
 * cards, and the question whether a step's hypothesis held. `stack` gives the file's stack.
 */
export function gameDayChannel(stack: () => Stack, where: string) {
  const channelMessages = (personId: string) => stack().person(personId).channel(where).messages();
  const gameCardOf = (personId: string, title: string) =>
    channelMessages(personId).find((m) => readPlain(m).includes(`Game day: ${title}`));
  /** A step's countdown card posted during the game day `title` (the channel has other game days' before it). */
  const countdownIn = (personId: string, title: string, step: number) => {
    const since = Number(gameCardOf(personId, title)?.ts ?? 0);
    return channelMessages(personId)
      .filter((m) => Number(m.ts) > since && readPlain(m).includes(`Step ${step} of`))
      .at(-1);
  };
  const waitForText = async (what: string, check: () => boolean) => {
    await stack().fake.waitFor(() => check() || undefined, what);
  };
  /** Answers the question of a step that has ended, in the game day's thread, with an observation. */
  const answer = async (personId: string, title: string, step: number, button: string, observation: string) => {
    const person = stack().person(personId);
    const question = await stack().fake.waitFor(
      () =>
        person
          .channel(where)
          .thread(gameCardOf(personId, title)!.ts)
          .find((m) => readPlain(m).includes(`Step ${step} (`) && m.buttons().some((b) => b.text === button)),
      `the question of step ${step}`,
    );
    await question.click(button);
    const modal = await stack().fake.waitFor(
      () => (person.modal()?.callbackId === 'step_answer' ? person.modal() : undefined),
      'the answer form',
    );
    await modal.fill('Observation', observation).submit();
  };
  /** The report file shared in the channel after the first `since` files. */
  const reportFile = (since: number) =>
    stack().fake.waitFor(
      () =>
        stack()
          .fake.files()
          .slice(since)
          .find((file) => file.channel === where),
      'the report',
    );
  return { channelMessages, gameCardOf, countdownIn, waitForText, answer, reportFile };
}
