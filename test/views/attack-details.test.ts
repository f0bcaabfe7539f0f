import { describe, expect, it } from 'vitest';
import { attackSchema, type Execution } from '../../src/client/index.ts';
import { attackDetailsMessage } from '../../src/views/attacks/attackDetails.ts';

const texts = (message: { blocks?: unknown[] | undefined }) => JSON.stringify(message.blocks);

describe('Details of an attack', () => {
  const attack = attackSchema.parse({
    guid: 'a1b2c3d4-0000-4000-8000-000000000001',
    stage: 'Running',
    stage_lifecycle: 'Active',
    args: ['-l', '60'],
    targets: [],
    target_type: 'Host',
    infra_command: { type: 'cpu' },
  });
  const executions: Execution[] = Array.from({ length: 15 }, (_, i) => ({
    client_id: `host-${i + 1}`,
    stage: 'Running',
    stage_lifecycle: 'Active',
  }));
  const team = { id: 'team-1', name: 'Platform' };

  it('lists the executions of the first 10 targets and counts the rest', () => {
    const text = texts(attackDetailsMessage(attack, executions, team));
    expect(text).toContain('*Executions* (15)');
    for (let i = 1; i <= 10; i += 1) expect(text).toContain(`\`host-${i}\``);
    for (let i = 11; i <= 15; i += 1) expect(text).not.toContain(`\`host-${i}\``);
    expect(text).toContain('5 more executions are in the platform.');
  });

  it('says how many tickets the attack has, that the team has no tracker, or that they could not be counted', () => {
    expect(texts(attackDetailsMessage(attack, [], team, undefined, { count: 0 }))).toContain(
      '0 tickets filed for this attack.',
    );
    expect(texts(attackDetailsMessage(attack, [], team, undefined, { count: 1 }))).toContain(
      '1 ticket filed for this attack.',
    );
    expect(texts(attackDetailsMessage(attack, [], team, undefined, { noIntegration: true }))).toContain(
      'No tickets: the team has no tracker integration.',
    );
    expect(
      texts(attackDetailsMessage(attack, [], team, undefined, { problem: 'the platform failed while handling it' })),
    ).toContain('Tickets could not be counted: the platform failed while handling it.');
  });
});
