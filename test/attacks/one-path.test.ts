import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** Every module under src/ but the platform client, with its text on one line. */
const sources = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
  .map((entry) => relative(root, join(entry.parentPath, entry.name)))
  .filter((file) => !file.startsWith('src/client/'))
  .map((file) => ({ file, text: readFileSync(join(root, file), 'utf8').replace(/\s+/g, ' ') }));

const callers = (pattern: RegExp) => sources.filter(({ text }) => pattern.test(text)).map(({ file }) => file);

describe('one path for what happens to an attack', () => {
  it('has one halt, the only code that calls the platform’s halt endpoints', () => {
    expect(callers(/\.(?:attacks|kubernetes)\s?\.\s?(?:halt|haltAll|haltEverything)\s?\(/)).toEqual([
      'src/attacks/halt.ts',
    ]);
  });

  it('has one start policy, the only code that asks for a second person or starts an attack', () => {
    expect(callers(/(?<!function )\b(?:startAttack|requestApproval)\s?\(/)).toEqual(['src/attacks/startPolicy.ts']);
  });

  it('has one recorder, the only code that adds to a game day’s timeline; one projection redraws an attack card', () => {
    expect(callers(/gameDays\s?\.\s?record\s?\(|\.record\(\s?channel\b/)).toEqual(['src/attacks/recorder.ts']);
    expect(callers(/\bupdate\([^;]*attackCardMessage\(/)).toEqual(['src/slack/record.ts']);
  });

  it('keeps the projection from changing an attack’s state: it writes no store key and calls no service', () => {
    const projection = sources.find(({ file }) => file === 'src/slack/record.ts')!.text;
    const imported = [...projection.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imported.filter((path) => /store|gamedays|workflow|approvals|recorder|cards\.ts/.test(path!))).toEqual([
      '../attacks/cards.ts',
    ]);
    // From the card store only what a card's messages are: it is handed the card as saved.
    expect(projection).toMatch(
      /import \{ type CardRecord, cardMessages, type HaltWarning, type MessageRef \} from '..\/attacks\/cards.ts'/,
    );
    expect(projection).not.toMatch(/\.(?:saveStarted|set|claim|record|attackFinished)\(/);
  });

  it('writes the audit line of every attack event in the audit module, which the recorder calls', () => {
    // A Slackbot tool may share an event's name (`name: 'halt_all'`): that is no audit line.
    for (const event of [
      'attack_started',
      'attack_halted',
      'note_added',
      'ticket_filed',
      'halt_all',
      'halt_everything',
    ])
      expect(callers(new RegExp(`(?<!name: )'${event}'`))).toEqual(['src/audit.ts']);
  });
});
