import { messageViolations, viewViolations } from '@faultline/fake-slack/limits';
import type { ContextBlock, InputBlock, KnownBlock, ModalView, PlainTextOption, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { builtInCatalogue, type InfraAttackArg, type InfraAttackMetadata } from '../../src/client/catalogue.ts';
import type { AttackRequest } from '../../src/attacks/request.ts';
import {
  ATTACK_BUILDER_VIEW,
  ATTACK_LENGTH,
  ATTACK_TARGET_COUNT,
  ATTACK_TARGET_KIND,
  ATTACK_TARGET_VALUES,
  ATTACK_TEAM,
  ATTACK_TYPE_SELECT,
  attackArgId,
  builderTargetKinds,
} from '../../src/views/attacks/builderFields.ts';
import { attackBuilderModal, type AttackBuilderOptions } from '../../src/views/attacks/attackBuilder.ts';
import { canHalt } from '../../src/attacks/lifecycle.ts';
import { attackCardMessage, stageLabel, stageWords } from '../../src/views/attacks/attackCard.ts';
import { startedCard } from '../support/cards.ts';
import {
  ATTACK_CANCEL,
  ATTACK_PREVIEW_ACTIONS,
  ATTACK_START,
  attackPreviewMessage,
  equivalentCommand,
} from '../../src/views/attacks/attackPreview.ts';

const teams = [
  { id: 'team-2', name: 'Search' },
  { id: 'team-1', name: 'Payments' },
];
const build = (options: Partial<AttackBuilderOptions> = {}): ModalView =>
  attackBuilderModal({ catalogue: builtInCatalogue, teams, currentTeam: 'team-1', maxAttackSeconds: 3600, ...options });

const inputs = (view: ModalView) => view.blocks.filter((block): block is InputBlock => block.type === 'input');
function inputById(view: ModalView, blockId: string): InputBlock {
  const block = inputs(view).find((candidate) => candidate.block_id === blockId);
  if (!block) throw new Error(`no input block ${blockId}`);
  return block;
}
/** Every field of the element as loose data, to read properties a given element type may lack. */
type LooseElement = Record<string, unknown> & { type: string };
const element = <T = LooseElement>(view: ModalView, blockId: string): T =>
  inputById(view, blockId).element as unknown as T;

function allOptions(block: { type: string; element?: unknown }): PlainTextOption[] {
  if (block.type !== 'input') return [];
  const el = block.element as { options?: PlainTextOption[]; option_groups?: { options: PlainTextOption[] }[] };
  return [...(el.options ?? []), ...(el.option_groups ?? []).flatMap((group) => group.options)];
}

function expectWithinSlackLimits(view: ModalView): void {
  expect(viewViolations(view)).toEqual([]);
  expect(view.blocks.length).toBeLessThanOrEqual(100);
  expect(view.title.text.length).toBeLessThanOrEqual(24);
  const blockIds = view.blocks.map((block) => block.block_id).filter((id) => id !== undefined);
  expect(new Set(blockIds).size).toBe(blockIds.length);
  const actionIds = inputs(view).map((block) => (block.element as { action_id?: string }).action_id);
  expect(new Set(actionIds).size).toBe(actionIds.length);
  for (const block of view.blocks) {
    const options = allOptions(block);
    expect(options.length).toBeLessThanOrEqual(100);
    for (const option of options) {
      expect(option.text.text.length).toBeLessThanOrEqual(75);
      expect(option.description?.text.length ?? 0).toBeLessThanOrEqual(75);
    }
  }
}

describe('attack builder modal', () => {
  it.each([undefined, ...builtInCatalogue.map((type) => type.name)])(
    'type %s: within Slack limits, ids unique',
    (selectedType) => {
      for (const kind of [undefined, ...builderTargetKinds]) {
        const view = build({ selectedType, values: kind ? { [ATTACK_TARGET_KIND]: kind } : {} });
        expect(view.callback_id).toBe(ATTACK_BUILDER_VIEW);
        expectWithinSlackLimits(view);
      }
    },
  );

  it('labels every flag in words a person reads, never a bare abbreviation', () => {
    const labels = (type: string) =>
      inputs(build({ selectedType: type })).map((block) => (block.label as { text: string }).text);
    expect(labels('latency')).toEqual(
      expect.arrayContaining(['Milliseconds (-m)', 'IP addresses (-i)', 'Remote ports (-p)']),
    );
    expect(labels('disk')).toEqual(expect.arrayContaining(['Directory (-d)', 'Block size (-b)']));
    expect(labels('time_travel')).toEqual(expect.arrayContaining(['Block NTP (-n)']));
    for (const type of builtInCatalogue)
      for (const label of labels(type.name)) expect(label).not.toMatch(/^(Ms|Ipaddresses|Dir|Block ntp) /);
  });

  it('groups the types Resource, State, Network and dispatches on a choice', () => {
    const view = build();
    const typeBlock = inputById(view, ATTACK_TYPE_SELECT);
    expect(typeBlock.dispatch_action).toBe(true);
    const select = element<{
      type: string;
      action_id: string;
      option_groups: { label: { text: string }; options: PlainTextOption[] }[];
    }>(view, ATTACK_TYPE_SELECT);
    expect(select.type).toBe('static_select');
    expect(select.action_id).toBe(ATTACK_TYPE_SELECT);
    expect(select.option_groups.map((group) => group.label.text)).toEqual(['Resource', 'State', 'Network']);
    expect(select.option_groups.map((group) => group.options.map((option) => option.value))).toEqual([
      ['cpu', 'memory', 'disk', 'io'],
      ['shutdown', 'time_travel', 'process_killer'],
      ['blackhole', 'latency', 'packet_loss', 'dns'],
    ]);
    expect(view.blocks.some((block) => block.block_id === ATTACK_LENGTH)).toBe(false);
  });

  it('puts types of an unknown group under Other, and truncates long descriptions', () => {
    const odd: InfraAttackMetadata = { name: 'gremlin', type: 'Chaos', info: 'x'.repeat(200), usage: null, args: [] };
    const view = attackBuilderModal({
      catalogue: [...builtInCatalogue, odd],
      teams,
      maxAttackSeconds: 3600,
      selectedType: 'gremlin',
    });
    const select = element<{ option_groups: { label: { text: string } }[]; initial_option: PlainTextOption }>(
      view,
      ATTACK_TYPE_SELECT,
    );
    expect(select.option_groups.map((group) => group.label.text)).toEqual(['Resource', 'State', 'Network', 'Other']);
    expect(select.initial_option.value).toBe('gremlin');
    expectWithinSlackLimits(view);
  });

  it('preselects the chosen type, matched ignoring case', () => {
    const select = element<{ initial_option: PlainTextOption }>(build({ selectedType: 'Latency' }), ATTACK_TYPE_SELECT);
    expect(select.initial_option.value).toBe('latency');
  });

  const expectedElement = (arg: InfraAttackArg) =>
    arg.type === 'Boolean'
      ? 'checkboxes'
      : arg.multiple
        ? 'plain_text_input'
        : arg.type === 'Enum'
          ? 'static_select'
          : arg.type === 'Integer' || arg.type === 'Float'
            ? 'number_input'
            : 'plain_text_input';

  it.each(builtInCatalogue.map((type) => [type.name, type] as const))(
    '%s: one input per flag, of the kind its type needs',
    (_, type) => {
      const view = build({ selectedType: type.name });
      const own = type.args.filter((arg) => arg.name !== 'length');
      const argBlocks = inputs(view).filter((block) => block.block_id?.startsWith('attack_arg:'));
      expect(argBlocks.map((block) => block.block_id)).toEqual(own.map((arg) => attackArgId(type.name, arg.name)));
      for (const arg of own) {
        const block = inputById(view, attackArgId(type.name, arg.name));
        expect(element(view, attackArgId(type.name, arg.name)).type).toBe(expectedElement(arg));
        expect(element(view, attackArgId(type.name, arg.name)).action_id).toBe(attackArgId(type.name, arg.name));
        expect(block.optional).toBe(!arg.required);
        expect(block.label.text).toContain(arg.short ? `-${arg.short}` : `--${arg.long}`);
        if (arg.multiple) expect(block.hint?.text).toContain('Separate several with commas.');
      }
      expect(view.blocks.some((block) => block.block_id === ATTACK_LENGTH)).toBe(
        type.args.some((arg) => arg.name === 'length'),
      );
    },
  );

  it('offers exactly the options of an enum flag', () => {
    const view = build({ selectedType: 'dns' });
    const select = element<{ options: PlainTextOption[] }>(view, attackArgId('dns', 'protocol'));
    expect(select.options.map((option) => option.value)).toEqual(['TCP', 'UDP']);
  });

  it('shows the limit and the default on the length, and caps it', () => {
    const view = build({ selectedType: 'cpu', maxAttackSeconds: 900 });
    const block = inputById(view, ATTACK_LENGTH);
    expect(block.hint?.text).toBe('Default: 60 seconds. At most 900 seconds.');
    expect(block.optional).toBe(true);
    expect(element(view, ATTACK_LENGTH)).toMatchObject({
      type: 'number_input',
      is_decimal_allowed: false,
      min_value: '1',
      max_value: '900',
    });
  });

  it('shows values given back, and leaves defaults as placeholders rather than values', () => {
    const values = {
      [ATTACK_LENGTH]: '45',
      [attackArgId('packet_loss', 'rate')]: '5',
      [attackArgId('packet_loss', 'corrupt')]: 'true',
      [attackArgId('packet_loss', 'protocol')]: 'UDP',
      [attackArgId('packet_loss', 'hostnames')]: 'a.example,b.example',
      [ATTACK_TARGET_KIND]: 'tags',
      [ATTACK_TARGET_VALUES]: 'role=web',
      [ATTACK_TARGET_COUNT]: '3',
    };
    const view = build({ selectedType: 'packet_loss', values });
    expect(element(view, ATTACK_LENGTH).initial_value).toBe('45');
    expect(element(view, attackArgId('packet_loss', 'rate'))).toMatchObject({
      initial_value: '5',
      placeholder: { text: '1' },
    });
    expect(
      (element(view, attackArgId('packet_loss', 'corrupt')).initial_options as PlainTextOption[]).map((o) => o.value),
    ).toEqual(['true']);
    expect((element(view, attackArgId('packet_loss', 'protocol')).initial_option as PlainTextOption).value).toBe('UDP');
    expect(element(view, attackArgId('packet_loss', 'hostnames')).initial_value).toBe('a.example,b.example');
    expect((element(view, ATTACK_TARGET_KIND).initial_option as PlainTextOption).value).toBe('tags');
    expect(element(view, ATTACK_TARGET_VALUES).initial_value).toBe('role=web');
    expect(element(view, ATTACK_TARGET_COUNT).initial_value).toBe('3');

    const fresh = build({ selectedType: 'packet_loss' });
    expect(element(fresh, attackArgId('packet_loss', 'rate')).initial_value).toBeUndefined();
    expect(element(fresh, attackArgId('packet_loss', 'corrupt')).initial_options).toBeUndefined();
    expect(element(fresh, ATTACK_TARGET_KIND).initial_option).toBeUndefined();
  });

  it('offers the seven target kinds as radio buttons that dispatch', () => {
    const view = build({ selectedType: 'cpu' });
    expect(inputById(view, ATTACK_TARGET_KIND).dispatch_action).toBe(true);
    const radio = element<{ type: string; options: PlainTextOption[] }>(view, ATTACK_TARGET_KIND);
    expect(radio.type).toBe('radio_buttons');
    expect(radio.options.map((option) => option.value)).toEqual([
      'all',
      'tags',
      'hosts',
      'containers',
      'labels',
      'service',
      'kubernetes',
    ]);
    expect(radio.options[0]?.text.text).toBe('Every active client of the team');
  });

  it.each([
    { kind: undefined, values: true, count: true, hint: 'role=web, zone=us-east-1a' },
    { kind: 'all', values: false, count: false, hint: undefined },
    { kind: 'tags', values: true, count: true, hint: 'role=web, zone=us-east-1a' },
    { kind: 'hosts', values: true, count: false, hint: 'Host identifiers separated by commas.' },
    { kind: 'containers', values: true, count: false, hint: 'Container identifiers separated by commas.' },
    { kind: 'labels', values: true, count: true, hint: 'app=checkout' },
  ])('target kind $kind: values $values, count $count', ({ kind, values, count, hint }) => {
    const view = build({ selectedType: 'cpu', values: kind ? { [ATTACK_TARGET_KIND]: kind } : {} });
    const ids = view.blocks.map((block) => block.block_id);
    expect(ids.includes(ATTACK_TARGET_VALUES)).toBe(values);
    expect(ids.includes(ATTACK_TARGET_COUNT)).toBe(count);
    if (hint) expect(inputById(view, ATTACK_TARGET_VALUES).hint?.text).toContain(hint);
    if (count)
      expect(element(view, ATTACK_TARGET_COUNT)).toMatchObject({
        type: 'number_input',
        is_decimal_allowed: false,
        min_value: '1',
      });
  });

  it("picks the team from the person's teams, the current one preselected", () => {
    const view = build();
    const select = element<{ type: string; options: PlainTextOption[]; initial_option: PlainTextOption }>(
      view,
      ATTACK_TEAM,
    );
    expect(select.type).toBe('static_select');
    expect(select.options.map((option) => option.text.text)).toEqual(['Payments', 'Search']);
    expect(select.initial_option.value).toBe('team-1');
    expect(inputById(view, ATTACK_TEAM).optional).toBeUndefined();
  });

  it('switches to a searchable team select beyond 100 teams, and drops it with no teams', () => {
    const many = Array.from({ length: 150 }, (_, index) => ({ id: `t${index}`, name: `Team ${index}` }));
    const view = build({ teams: many, currentTeam: 't7' });
    expect(element(view, ATTACK_TEAM)).toMatchObject({ type: 'external_select', initial_option: { value: 't7' } });
    expectWithinSlackLimits(view);
    expect(build({ teams: [] }).blocks.some((block) => block.block_id === ATTACK_TEAM)).toBe(false);
  });

  it('keeps a type with more flags than fit within 100 blocks, target and team included', () => {
    const flags = Array.from(
      { length: 150 },
      (_, index): InfraAttackArg => ({
        name: `flag_${index}`,
        short: null,
        long: `flag_${index}`,
        info: null,
        type: 'String',
        default: null,
        required: false,
        multiple: false,
        options: null,
      }),
    );
    const huge: InfraAttackMetadata = { name: 'huge', type: 'Resource', info: null, usage: null, args: flags };
    const view = attackBuilderModal({ catalogue: [huge], teams, maxAttackSeconds: 60, selectedType: 'huge' });
    expectWithinSlackLimits(view);
    const ids = view.blocks.map((block) => block.block_id);
    expect(ids).toContain(ATTACK_TARGET_KIND);
    expect(ids).toContain(ATTACK_TEAM);
    const notes = view.blocks
      .filter((block): block is ContextBlock => block.type === 'context')
      .map((block) => JSON.stringify(block.elements));
    expect(notes.some((note) => note.includes('more flags of huge do not fit here'))).toBe(true);
  });

  it('carries private metadata and offers Preview and Cancel', () => {
    const view = build({ privateMetadata: '{"channel":"C1"}' });
    expect(view.private_metadata).toBe('{"channel":"C1"}');
    expect(view.submit?.text).toBe('Preview');
    expect(view.close?.text).toBe('Cancel');
  });
});

describe('equivalentCommand', () => {
  const base: AttackRequest = {
    type: 'cpu',
    args: [],
    target: { kind: 'all' },
    team: undefined,
    yes: false,
    lengthSeconds: 60,
  };
  it.each([
    { request: base, text: 'attack cpu' },
    {
      request: { ...base, args: ['-l', '30', '-c', '1'], target: { kind: 'tags', tags: { role: 'web' } } },
      text: 'attack cpu -l 30 -c 1 --target-tags role=web',
    },
    {
      request: { ...base, target: { kind: 'tags', tags: { role: 'web', zone: 'a' }, count: 2 } },
      text: 'attack cpu --target-tags role=web,zone=a --target-count 2',
    },
    {
      request: { ...base, target: { kind: 'labels', labels: { app: 'x' }, count: 1 } },
      text: 'attack cpu --target-labels app=x --target-count 1',
    },
    { request: { ...base, target: { kind: 'hosts', ids: ['a', 'b'] } }, text: 'attack cpu --target-hosts a,b' },
    { request: { ...base, target: { kind: 'containers', ids: ['c'] } }, text: 'attack cpu --target-containers c' },
    {
      request: { ...base, target: { kind: 'service', serviceId: 'svc-1' } },
      text: 'attack cpu --target-service svc-1',
    },
    { request: { ...base, team: 'Payments Core', yes: true }, text: 'attack cpu --team "Payments Core" --yes' },
    { request: { ...base, type: 'process_killer', args: ['-p', "it's"] }, text: `attack process_killer -p "it's"` },
  ] as { request: AttackRequest; text: string }[])('$text', ({ request, text }) => {
    expect(equivalentCommand(request)).toBe(text);
  });
});

describe('attack preview', () => {
  const request: AttackRequest = {
    type: 'cpu',
    args: ['-l', '30', '-c', '1'],
    target: { kind: 'tags', tags: { role: 'web' } },
    team: undefined,
    yes: false,
    lengthSeconds: 30,
  };
  const preview = (overrides: Partial<AttackRequest> = {}, teamName = 'Payments') =>
    attackPreviewMessage({
      request: { ...request, ...overrides },
      teamName,
      pendingId: 'pending-7',
      command: '/chaos',
    });

  const fieldTexts = (blocks: KnownBlock[]) =>
    blocks
      .filter((block): block is SectionBlock => block.type === 'section' && block.fields !== undefined)
      .flatMap((block) => block.fields!.map((field) => field.text));
  const sectionTexts = (blocks: KnownBlock[]) =>
    blocks
      .filter((block): block is SectionBlock => block.type === 'section' && block.text !== undefined)
      .map((block) => block.text!.text);
  const contextText = (blocks: KnownBlock[]) =>
    blocks
      .filter((block): block is ContextBlock => block.type === 'context')
      .map((block) => (block.elements[0] as { text: string }).text)
      .join('\n');

  it('shows type, args, target, team and length', () => {
    const { text, blocks } = preview();
    expect(messageViolations(blocks)).toEqual([]);
    expect(fieldTexts(blocks)).toEqual([
      '*Type*\n`cpu`',
      '*Arguments*\n`-l 30 -c 1`',
      '*Target*\nall hosts tagged role=web',
      '*Team*\nPayments',
      '*Length*\n30 seconds',
    ]);
    expect(text).toBe('Start a cpu attack on all hosts tagged role=web for 30 seconds?');
  });

  it('says "none" without args, and leaves out the length of a type without one', () => {
    const { blocks } = preview({
      type: 'shutdown',
      args: [],
      lengthSeconds: undefined,
      target: { kind: 'hosts', ids: ['web-1'] },
    });
    expect(fieldTexts(blocks)).toEqual([
      '*Type*\n`shutdown`',
      '*Arguments*\nnone',
      '*Target*\nhost web-1',
      '*Team*\nPayments',
    ]);
  });

  it.each([
    { seconds: 1, words: '1 second' },
    { seconds: 90, words: '90 seconds (1 min 30 s)' },
    { seconds: 3600, words: '3600 seconds (1 h)' },
  ])('length $seconds reads "$words"', ({ seconds, words }) => {
    expect(fieldTexts(preview({ lengthSeconds: seconds }).blocks)).toContain(`*Length*\n${words}`);
  });

  it('warns prominently when every active client of the team would be hit', () => {
    const { text, blocks } = preview({ target: { kind: 'all' } });
    const warning = sectionTexts(blocks).find((line) => line.startsWith(':warning:'));
    expect(warning).toContain('*This attack hits every active client of team Payments.*');
    expect(blocks.findIndex((block) => block.type === 'section' && block.text?.text === warning)).toBeLessThan(
      blocks.findIndex((block) => block.type === 'actions'),
    );
    expect(fieldTexts(blocks)).toContain('*Target*\n:warning: every active client of team Payments');
    expect(text).toContain('every active client of team Payments');
    expect(sectionTexts(preview().blocks).some((line) => line.includes(':warning:'))).toBe(false);
  });

  it('offers Start and Cancel carrying the pending id', () => {
    const { blocks } = preview();
    const buttons = blocks.find((block) => block.type === 'actions');
    expect(buttons).toMatchObject({
      block_id: ATTACK_PREVIEW_ACTIONS,
      elements: [
        { type: 'button', action_id: ATTACK_START, value: 'pending-7', style: 'primary', text: { text: 'Start' } },
        { type: 'button', action_id: ATTACK_CANCEL, value: 'pending-7', text: { text: 'Cancel' } },
      ],
    });
    expect((buttons as { elements: { style?: string }[] }).elements[1]?.style).toBeUndefined();
  });

  it('teaches the equivalent slash command, naming the team rather than its id', () => {
    expect(contextText(preview().blocks)).toBe('Same as typing `/chaos attack cpu -l 30 -c 1 --target-tags role=web`');
    expect(contextText(preview({ team: 'team-1' }).blocks)).toBe(
      'Same as typing `/chaos attack cpu -l 30 -c 1 --target-tags role=web --team Payments`',
    );
  });

  it('escapes names and values before they reach mrkdwn', () => {
    const { blocks } = preview({ args: ['-p', '<!here>`x'], type: 'process_killer' }, 'R&D <ops>');
    const texts = [...fieldTexts(blocks), contextText(blocks)].join('\n');
    expect(texts).toContain('R&amp;D &lt;ops&gt;');
    expect(texts).toContain('`-p &lt;!here&gt;ˋx`');
    expect(texts).not.toContain('<!here>');
  });

  it('escapes them in the fallback text too: notifications read it as mrkdwn', () => {
    const { text } = preview(
      { type: 'cpu<!channel>', target: { kind: 'tags', tags: { role: '<https://evil.example|click> & <@U0BOSS>' } } },
      'R&D <ops>',
    );
    expect(text).toBe(
      'Start a cpu&lt;!channel&gt; attack on all hosts tagged role=&lt;https://evil.example|click&gt; &amp; &lt;@U0BOSS&gt; for 30 seconds?',
    );
    const everyClient = preview({ target: { kind: 'all' } }, 'R&D <!here>').text;
    expect(everyClient).toContain('every active client of team R&amp;D &lt;!here&gt;');
    expect(everyClient).not.toContain('<!here>');
  });
});

describe('stages in words', () => {
  // Every stage of the platform contract, by lifecycle.
  const stages = {
    Active: [
      'Pending',
      'Distributed',
      'Initializing',
      'Running',
      'TearingDown',
      'InterruptTriggered',
      'RollbackTriggered',
      'RollbackStarted',
    ],
    Halting: ['Halt', 'HaltDistributed'],
    Complete: ['Successful', 'UserHalted'],
    Error: [
      'InvalidArgument',
      'TargetNotFound',
      'ClientAborted',
      'LostCommunication',
      'InitializationFailed',
      'TeardownFailed',
      'HaltFailed',
      'Failed',
    ],
  };

  it.each(Object.entries(stages).flatMap(([lifecycle, names]) => names.map((name) => [name, lifecycle] as const)))(
    "%s (%s) reads as words, not the platform's name",
    (stage, lifecycle) => {
      const words = stageWords(stage);
      expect(words).not.toMatch(/[a-z][A-Z]/);
      expect(stageLabel(stage, lifecycle)).toContain(words);
      if (lifecycle === 'Halting') expect(words).toBe('Halting');
      if (lifecycle === 'Error') expect(words.toLowerCase()).toContain('fail');
    },
  );

  it('spaces out a stage it does not know', () => {
    expect(stageWords('QuantumTunnelling')).toBe('Quantum Tunnelling');
  });

  it('offers Halt only while the attack runs and no halt is under way', () => {
    expect(['Active', '', 'Halting', 'Complete', 'Error'].map((lifecycle) => canHalt({ lifecycle }))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe('attack card targets', () => {
  const card = startedCard({
    guid: 'g-1',
    teamId: 't1',
    teamName: 'Platform',
    channel: 'C1',
    ts: '1.1',
    startedBy: { workspaceId: 'T1', userId: 'U1', userName: 'u1' },
  });
  const targets = (c: typeof card) => JSON.stringify(attackCardMessage(c).blocks);

  it('says resolving while the platform has not counted the clients of a live attack', () => {
    expect(targets(card)).toContain('resolving…');
  });

  it('never says resolving once the attack has ended', () => {
    const ended = { ...card, stage: 'UserHalted', lifecycle: 'Complete', endTime: new Date().toISOString() };
    expect(targets(ended)).not.toContain('resolving');
    expect(targets(ended)).toContain('not reported');
    expect(targets({ ...ended, totalClients: 1 })).toContain('1 client');
  });
});
