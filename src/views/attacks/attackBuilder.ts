import type { KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { InfraAttackMetadata } from '../../client/catalogue.ts';
import { findAttackType, groupedTypes } from '../../attacks/catalogue.ts';
import { agree, context, input, limits, modal, plain, plural, textInput } from '../blocks.ts';
import type { TeamChoice } from '../login/team.ts';
import {
  argInput,
  guardsBlock,
  lengthInput,
  teamBlock,
  ATTACK_BUILDER_VIEW,
  ATTACK_CHANNEL,
  ATTACK_GUARDS,
  ATTACK_LENGTH,
  ATTACK_SAVE_AS,
  ATTACK_TARGET_KIND,
  ATTACK_TYPE_SELECT,
  attackArgId,
  builderTitle,
  isBuilderTargetKind,
} from './builderFields.ts';
import { targetBlocks } from './builderTarget.ts';

export interface AttackBuilderOptions {
  catalogue: readonly InfraAttackMetadata[];
  selectedType?: string | undefined;
  teams: TeamChoice[];
  currentTeam?: string | undefined;
  /** Values to show again, by action id (as a submission or block action carries them). */
  values?: Record<string, string | undefined> | undefined;
  maxAttackSeconds: number;
  privateMetadata?: string | undefined;
  /** Ask for the channel the attack's card goes to. */
  askChannel?: boolean | undefined;
  /** Offer the Guards field: only when a monitoring integration is configured to read them through. */
  askGuards?: boolean | undefined;
}

function typeOption(metadata: InfraAttackMetadata): PlainTextOption {
  const option: PlainTextOption = { text: plain(metadata.name, limits.optionText), value: metadata.name };
  if (metadata.info) option.description = plain(metadata.info, limits.optionText);
  return option;
}

/**
 * The attack builder. Choosing a type (ATTACK_TYPE_SELECT) or a target kind (ATTACK_TARGET_KIND)
 * dispatches an action, so the handler can rebuild the modal with that type's own arguments and
 * the matching target fields, passing the current values back in `values`.
 */
export function attackBuilderModal(options: AttackBuilderOptions): ModalView {
  const values = options.values ?? {};
  const metadata = options.selectedType ? findAttackType(options.catalogue, options.selectedType) : undefined;
  const typeOptions = groupedTypes(options.catalogue).map(({ group, types }) => ({
    label: plain(group, limits.optionText),
    options: types.slice(0, limits.selectOptions).map(typeOption),
  }));
  const blocks: KnownBlock[] = [
    input(
      ATTACK_TYPE_SELECT,
      'Attack type',
      {
        type: 'static_select',
        action_id: ATTACK_TYPE_SELECT,
        placeholder: plain('Choose an attack type'),
        option_groups: typeOptions,
        ...(metadata ? { initial_option: typeOption(metadata) } : {}),
      },
      { dispatch: true },
    ),
  ];

  const tail: KnownBlock[] = [
    ...targetBlocks(isBuilderTargetKind(values[ATTACK_TARGET_KIND]) ? values[ATTACK_TARGET_KIND] : undefined, values),
    ...(options.askGuards ? [guardsBlock(values[ATTACK_GUARDS])] : []),
    ...(options.teams.length > 0 ? [teamBlock(options.teams, options.currentTeam)] : []),
    ...(options.askChannel
      ? [
          input(
            ATTACK_CHANNEL,
            'Channel for its card',
            {
              type: 'conversations_select',
              action_id: ATTACK_CHANNEL,
              filter: { include: ['public', 'private'], exclude_bot_users: true },
              ...(values[ATTACK_CHANNEL] ? { initial_conversation: values[ATTACK_CHANNEL] } : {}),
            },
            { hint: 'The attack card, with its Halt button, is posted there. Faultline must be in the channel.' },
          ),
        ]
      : []),
    input(
      ATTACK_SAVE_AS,
      'Save as',
      textInput(ATTACK_SAVE_AS, values[ATTACK_SAVE_AS], { placeholder: 'checkout-cpu', maxLength: 40 }),
      {
        optional: true,
        hint: 'Keeps this attack for the team under the name, to run again with the run command or in a game-day plan.',
      },
    ),
  ];
  const closing = context(
    options.askChannel
      ? 'Submitting shows a preview here first: nothing starts until you press Start.'
      : 'Submitting shows a preview in the channel first: nothing starts until you press Start.',
  );

  if (!metadata) {
    blocks.push(context('Choose a type to see its own flags.'));
  } else {
    if (metadata.args.some((arg) => arg.name === 'length'))
      blocks.push(lengthInput(metadata, options.maxAttackSeconds, values[ATTACK_LENGTH]));
    const own = metadata.args.filter((arg) => arg.name !== 'length');
    // Keep room for the target, team and closing blocks; types with more flags than fit are rare.
    const room = limits.viewBlocks - blocks.length - tail.length - 2;
    for (const arg of own.slice(0, room))
      blocks.push(argInput(metadata.name, arg, values[attackArgId(metadata.name, arg.name)]));
    if (own.length > room)
      blocks.push(
        context(
          `${plural(own.length - room, 'more flag')} of ${metadata.name} ${agree(own.length - room, 'does', 'do')} not fit here; use the slash command.`,
        ),
      );
  }
  blocks.push(...tail, closing);

  return modal(ATTACK_BUILDER_VIEW, builderTitle, blocks, {
    submit: 'Preview',
    close: 'Cancel',
    ...(options.privateMetadata !== undefined ? { privateMetadata: options.privateMetadata } : {}),
  });
}
