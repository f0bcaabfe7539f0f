/**
 * The bot the demo runs: the one module of this package that reaches into the bot's source, and
 * only through its entry points (docs/decisions/0004-workspace-packages.md).
 */
import { readFileSync } from 'node:fs';
import type { StepDefinition } from '@faultline/fake-slack';
import { parse } from 'yaml';

export { startBot } from '../../../src/app.ts';
export { createBot } from '../../../src/bootstrap.ts';
export { ConfigError, loadConfig } from '../../../src/config.ts';
export { createLogger } from '../../../src/logger.ts';
export { backgroundJobs } from '../../../src/jobs/backgroundJobs.ts';

/** The bot's manifest.yml, read as the demo's fake Slack needs it. */
function manifest(): {
  features?: { shortcuts?: Array<{ name: string; type: string; callback_id: string }> };
  functions?: Record<string, StepDefinition>;
} {
  return parse(readFileSync(new URL('../../../manifest.yml', import.meta.url), 'utf8'));
}

/** The app's Workflow Builder steps (manifest.yml `functions`): the fake Slack runs them, the Workflows panel offers them. */
export function manifestSteps(): Record<string, StepDefinition> {
  return manifest().functions ?? {};
}

/** A message shortcut as the app's manifest declares it, for the page's message menu. */
export interface MessageShortcut {
  name: string;
  callbackId: string;
}

/** The message shortcuts of the bot's manifest.yml, which Slack lists in every message's menu. */
export function messageShortcuts(): MessageShortcut[] {
  return (manifest().features?.shortcuts ?? [])
    .filter((shortcut) => shortcut.type === 'message')
    .map((shortcut) => ({ name: shortcut.name, callbackId: shortcut.callback_id }));
}
