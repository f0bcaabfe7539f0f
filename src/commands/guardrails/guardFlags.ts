import type { Config } from '../../config.ts';
import { UserInputError } from '../../errors.ts';
import { guardKey, type GuardSpec } from '../../guardrails/guards.ts';
import { escapeMrkdwn } from '../../views/blocks.ts';

export const guardUsage = '--guard a:<monitor id> | --guard b:<alert name>';

/** `--guard a:<id>` or `--guard b:<alert name>`, with the integration from config. */
export function parseGuard(text: string, config: Pick<Config, 'monitoring'>, cmd: string): GuardSpec {
  const match = /^\s*([ab])\s*:\s*(.+?)\s*$/i.exec(text);
  if (!match)
    throw new UserInputError(
      `“${escapeMrkdwn(text)}” is not a guard. Write \`a:<monitor id>\` for a monitoringA monitor or \`b:<alert name>\` for a monitoringB alert.`,
      guardUsage,
    );
  const [, kind, value] = match as unknown as [string, string, string];
  if (kind.toLowerCase() === 'a') {
    if (!/^\d{1,20}$/.test(value))
      throw new UserInputError(
        `“${escapeMrkdwn(value)}” is not a monitor id: monitoringA monitors have numeric ids, such as \`a:1234567\`.`,
        guardUsage,
      );
    const integration = config.monitoring.integrationA;
    if (!integration)
      throw new UserInputError(
        `Monitor guards need MONITORING_A_INTEGRATION, which this Faultline does not set. Ask whoever runs it, or use \`${cmd} gameday guard\` to name the integration.`,
      );
    return { kind: 'a', monitorId: value, integration, domain: config.monitoring.domainA };
  }
  if (!/^[\w.:/-]{1,200}$/.test(value))
    throw new UserInputError(
      `“${escapeMrkdwn(value)}” is not an alert name: letters, digits and \`_ . : / -\` only.`,
      guardUsage,
    );
  const uri = config.monitoring.uriB;
  if (!uri)
    throw new UserInputError(
      `Alert guards need MONITORING_B_URI, which this Faultline does not set. Ask whoever runs it, or use \`${cmd} gameday guard\` to give the URI.`,
    );
  return { kind: 'b', alert: value, uri };
}

/** Every `--guard` value of a command (the flag may repeat), de-duplicated. */
export function guardsFromFlag(value: unknown, config: Pick<Config, 'monitoring'>, cmd: string): GuardSpec[] {
  if (value === undefined) return [];
  const values = (Array.isArray(value) ? value : [value]).map((v) => (typeof v === 'string' ? v : ''));
  if (values.some((v) => !v.trim())) throw new UserInputError('`--guard` needs a guard after it.', guardUsage);
  const specs = values.map((v) => parseGuard(v, config, cmd));
  const seen = new Set<string>();
  return specs.filter((s) => !seen.has(guardKey(s)) && seen.add(guardKey(s)));
}
