/**
 * The page's Simulator panel: what the platform watches (monitors, alerts), read and changed
 * through the simulator's control surface over HTTPS, as any tool outside the simulator would.
 * A newcomer turns a monitor to Alert here and sees the guard on it halt the attacks it covers,
 * or makes a target ignore halts and sees a halt of an attack on it not verified.
 */
import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { PlaygroundError } from './actions.ts';

export interface SimulatorControl {
  /** The simulator's control base, e.g. `https://127.0.0.1:8443/_control`. */
  controlUrl: string;
  /** Trusts the simulator's own certificate. */
  dispatcher: Dispatcher;
}

const monitorList = z.array(z.object({ id: z.number(), name: z.string(), state: z.string(), company: z.string() }));
const alertList = z.array(z.object({ name: z.string(), state: z.string(), company: z.string() }));
const targetList = z.array(z.object({ id: z.string(), kind: z.string(), team: z.string(), ignoresHalts: z.boolean() }));

/** The states the panel offers, as the simulator's control surface takes them. */
export const monitorChoices = ['OK', 'Warn', 'Alert', 'No Data'] as const;
export const alertChoices = ['inactive', 'pending', 'firing'] as const;

export const simulatorBodies = {
  monitor: z.object({ id: z.number().int().positive(), state: z.enum(monitorChoices) }),
  alert: z.object({ name: z.string().min(1).max(200), state: z.enum(alertChoices) }),
  target: z.object({ id: z.string().min(1).max(200), ignoresHalts: z.boolean() }),
};

export interface SimulatorView {
  monitors: Array<{ id: number; name: string; state: string; company: string }>;
  alerts: Array<{ name: string; state: string; company: string }>;
  /** The hosts and containers attacks target; one that ignores halts keeps running when halted. */
  targets: Array<{ id: string; kind: string; team: string; ignoresHalts: boolean }>;
  monitorChoices: readonly string[];
  alertChoices: readonly string[];
}

export class SimulatorPanel {
  readonly #control: SimulatorControl;

  constructor(control: SimulatorControl) {
    this.#control = control;
  }

  async view(): Promise<SimulatorView> {
    const [monitors, alerts, targets] = await Promise.all([
      this.#call('GET', '/monitors'),
      this.#call('GET', '/alerts'),
      this.#call('GET', '/targets'),
    ]);
    return {
      monitors: monitorList.parse(monitors),
      alerts: alertList.parse(alerts),
      targets: targetList.parse(targets),
      monitorChoices,
      alertChoices,
    };
  }

  async setMonitor(body: unknown): Promise<void> {
    const { id, state } = simulatorBodies.monitor.parse(body);
    await this.#call('POST', `/monitors/${id}/state`, { state }, `monitor ${id}`);
  }

  async setAlert(body: unknown): Promise<void> {
    const { name, state } = simulatorBodies.alert.parse(body);
    await this.#call('POST', `/alerts/${encodeURIComponent(name)}/state`, { state }, `alert ${name}`);
  }

  /** Makes a target ignore halts (it keeps running when halted), or take them again. */
  async setTarget(body: unknown): Promise<void> {
    const { id, ignoresHalts } = simulatorBodies.target.parse(body);
    await this.#call('POST', `/targets/${encodeURIComponent(id)}/halts`, { ignore: ignoresHalts }, `target ${id}`);
  }

  async #call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    what = 'what the platform watches',
  ): Promise<unknown> {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${this.#control.controlUrl}${path}`, {
        method,
        dispatcher: this.#control.dispatcher,
        headersTimeout: 5_000,
        bodyTimeout: 5_000,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
    } catch {
      throw new PlaygroundError(502, 'The simulator is not answering. Is the demo still running?');
    }
    if (response.statusCode === 404) {
      await response.body.dump();
      throw new PlaygroundError(404, `The simulator has no ${what}.`);
    }
    if (response.statusCode >= 300) {
      await response.body.dump();
      throw new PlaygroundError(502, `The simulator did not change ${what} (HTTP ${response.statusCode}).`);
    }
    return response.body.json();
  }
}
