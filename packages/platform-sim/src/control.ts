/**
 * The simulator's control surface: what happens in the world the platform watches, made to
 * happen on demand. A monitor turns `Alert`, an alert fires, someone starts an attack in the
 * platform's web UI, a host joins or leaves a team, a target's agent stops taking halts or stops late. It is served under `/_control`, beside and never inside the platform API
 * under `/v1` that the bot calls, so no platform path reaches it. It takes no credentials: the
 * simulator is for tests and demos on this machine, and listens on loopback unless told otherwise.
 */
import { z } from 'zod';
import { badRequest, json, publicRoute, SimHttpError, type RequestContext, type Reply, type Route } from './route.ts';
import {
  addContainer,
  addHost,
  findClient,
  isActiveHost,
  removeClient,
  setHostActive,
  setStopDelay,
} from './clients.ts';
import { Router } from './routing.ts';
import { alertStates, monitorStates, type AlertState, type MonitorState, type SimState } from './state.ts';

export const controlPrefix = '/_control';

/** What the control surface changes, given by the simulator that serves it. */
export interface ControlOperations {
  state: SimState;
  setMonitorState(monitorId: number, state: MonitorState): void;
  setAlertState(name: string, state: AlertState, companyId?: string): void;
  createAttackDirectly(
    teamId: string,
    attack: { type?: string; args?: string[]; target?: unknown; createUser?: string },
  ): string;
  ignoreHalts(clientId: string, ignore: boolean): void;
}

/** The endpoints, as `GET /_control` lists them. */
const endpoints = [
  'GET  /_control/monitors                   the monitoringA monitors and their states',
  `POST /_control/monitors/{id}/state        {"state": "Alert"}; one of ${monitorStates.join(', ')}`,
  'GET  /_control/alerts                     the monitoringB alerts and their states',
  'POST /_control/alerts/{name}/state        {"state": "firing"}; one of ' +
    alertStates.join(', ') +
    '; "companyId" picks another company',
  'POST /_control/attacks                    {"team": "Platform", "type": "cpu", "args": ["-l", "60"]}: an attack started outside the bot, as in the web UI',
  'GET  /_control/targets                    the hosts and containers attacks target: active or not, whether each ignores halts, its stop delay',
  'POST /_control/targets/{id}/halts         {"ignore": true}: the target (a host or container id) keeps running when halted, until set back to false and halted again',
  'POST /_control/targets/{id}/stop-delay    {"seconds": 5}: the target stops that much later than the others when halted; 0 for at once',
  'POST /_control/hosts                      {"team": "Platform", "id": "platform-web-3", "tags": {"role": "web"}}: a new host reports to the team',
  'POST /_control/hosts/{id}/containers      {"id": "checkout-3", "labels": {"app": "checkout"}}: a new container runs on the host',
  'POST /_control/hosts/{id}/active          {"active": false}: the host\'s agent stops reporting (attacks skip it and its containers), or reports again',
  'DELETE /_control/targets/{id}             the host (with its containers) or the container is gone',
];

const stateBody = z.looseObject({ state: z.unknown().optional(), companyId: z.string().optional() });
const haltsBody = z.looseObject({ ignore: z.boolean() });
const stopDelayBody = z.looseObject({ seconds: z.number().min(0).max(3600) });
const activeBody = z.looseObject({ active: z.boolean() });
const stringMap = z.record(z.string(), z.string());
const hostBody = z.looseObject({ team: z.string().min(1), id: z.string().min(1), tags: stringMap.optional() });
const containerBody = z.looseObject({ id: z.string().min(1), labels: stringMap.optional() });
const attackBody = z.looseObject({
  team: z.string().min(1),
  type: z.string().min(1).optional(),
  args: z.array(z.string()).max(100).optional(),
  target: z.unknown().optional(),
  createUser: z.string().optional(),
});

export function controlRoutes(ops: ControlOperations): Route[] {
  const { state } = ops;

  const everyMonitor = () =>
    [...state.companies.values()].flatMap((company) =>
      (company.monitoringA?.monitors ?? []).map((monitor) => ({ company, monitor })),
    );

  function monitorId(raw: string | undefined): number {
    if (!/^\d{1,15}$/.test(raw ?? ''))
      throw badRequest(`"${raw ?? ''}" is not a monitor id: monitors have numeric ids, such as 1234567`);
    return Number(raw);
  }

  function stateFrom<S extends string>(
    context: RequestContext,
    allowed: readonly S[],
    what: string,
  ): { state: S; companyId?: string | undefined } {
    const body = bodyOf(context, stateBody, `{"state": "${allowed[0]}"}`);
    if (typeof body.state !== 'string' || !(allowed as readonly string[]).includes(body.state)) {
      throw badRequest(
        `state must be one of ${allowed.join(', ')} (${what}), not ${JSON.stringify(body.state) ?? 'missing'}`,
      );
    }
    return { state: body.state as S, companyId: body.companyId };
  }

  const target = ({ id, teamId }: { id: string; teamId: string }, kind: 'host' | 'container', active: boolean) => ({
    id,
    kind,
    teamId,
    team: state.teams.get(teamId)?.name ?? teamId,
    active,
    ignoresHalts: state.deafTargets.has(id),
    stopDelaySeconds: (state.stopDelays.get(id) ?? 0) / 1000,
  });
  const hostActive = (hostId: string) => {
    const host = state.hosts.find((candidate) => candidate.id === hostId);
    return host !== undefined && isActiveHost(host);
  };

  /** A target a halt can reach: a host, a container, or what a Kubernetes attack acts on. */
  function knownTarget(id: string): string {
    const known =
      findClient(state, id) !== undefined ||
      [...state.kubernetesAttacks.values()].some((attack) => attack.targets.includes(id));
    if (!known) throw new SimHttpError(404, `No target ${id}: give the id of a host or container an attack targets`);
    return id;
  }

  function teamOf(nameOrId: string): string {
    if (state.teams.has(nameOrId)) return nameOrId;
    const named = [...state.teams.values()].filter((team) => team.name.toLowerCase() === nameOrId.toLowerCase());
    if (named.length === 1) return named[0]!.id;
    if (named.length > 1) throw badRequest(`team: several teams are named "${nameOrId}"; give its id`);
    throw badRequest(`team: no team is named "${nameOrId}" or has that id`);
  }

  return [
    publicRoute('GET', '/', () => json(200, { endpoints })),

    publicRoute('GET', '/monitors', () =>
      json(
        200,
        everyMonitor().map(({ company, monitor }) => ({
          id: monitor.id,
          name: monitor.name,
          state: monitor.state,
          companyId: company.id,
          company: company.name,
        })),
      ),
    ),

    publicRoute('POST', '/monitors/:id/state', (context) => {
      const id = monitorId(context.params.id);
      const found = everyMonitor().find(({ monitor }) => monitor.id === id);
      if (!found) throw new SimHttpError(404, `No monitor ${id}: GET ${controlPrefix}/monitors lists them`);
      const { state: next } = stateFrom(context, monitorStates, 'only Alert is unhealthy');
      ops.setMonitorState(id, next);
      return json(200, { id, name: found.monitor.name, state: found.monitor.state });
    }),

    publicRoute('GET', '/alerts', () =>
      json(
        200,
        [...state.companies.values()].flatMap((company) =>
          (company.monitoringB?.alerts ?? []).map((alert) => ({
            name: alert.name,
            state: alert.state,
            companyId: company.id,
            company: company.name,
          })),
        ),
      ),
    ),

    publicRoute('POST', '/alerts/:name/state', (context) => {
      const name = context.params.name ?? '';
      const { state: next, companyId } = stateFrom(context, alertStates, 'only firing is unhealthy');
      const company =
        companyId === undefined
          ? [...state.companies.values()].find((candidate) =>
              candidate.monitoringB?.alerts.some((alert) => alert.name === name),
            )
          : state.companies.get(companyId);
      if (companyId !== undefined && !company) throw badRequest(`companyId: no company ${companyId}`);
      const alert = company?.monitoringB?.alerts.find((candidate) => candidate.name === name);
      if (!company || !alert) throw new SimHttpError(404, `No alert ${name}: GET ${controlPrefix}/alerts lists them`);
      ops.setAlertState(name, next, company.id);
      return json(200, { name, state: alert.state, companyId: company.id });
    }),

    publicRoute('GET', '/targets', () =>
      json(200, [
        ...state.hosts.map((host) => target(host, 'host', isActiveHost(host))),
        ...state.containers.map((container) => target(container, 'container', hostActive(container.hostId))),
      ]),
    ),

    publicRoute('POST', '/targets/:id/halts', (context) => {
      const id = knownTarget(context.params.id ?? '');
      const { ignore } = bodyOf(context, haltsBody, '{"ignore": true}');
      ops.ignoreHalts(id, ignore);
      return json(200, { id, ignoresHalts: ignore });
    }),

    publicRoute('POST', '/targets/:id/stop-delay', (context) => {
      const id = knownTarget(context.params.id ?? '');
      const { seconds } = bodyOf(context, stopDelayBody, '{"seconds": 5}');
      setStopDelay(state, id, seconds * 1000);
      return json(200, { id, stopDelaySeconds: seconds });
    }),

    publicRoute('DELETE', '/targets/:id', (context) => {
      const id = context.params.id ?? '';
      removeClient(state, id);
      return json(200, { id, removed: true });
    }),

    publicRoute('POST', '/hosts', (context) => {
      const body = bodyOf(context, hostBody, '{"team": "Platform", "id": "platform-web-3", "tags": {"role": "web"}}');
      const host = addHost(state, teamOf(body.team), body.id, body.tags);
      return json(201, target(host, 'host', true));
    }),

    publicRoute('POST', '/hosts/:id/containers', (context) => {
      const body = bodyOf(context, containerBody, '{"id": "checkout-3", "labels": {"app": "checkout"}}');
      const container = addContainer(state, context.params.id ?? '', body.id, body.labels);
      return json(201, target(container, 'container', hostActive(container.hostId)));
    }),

    publicRoute('POST', '/hosts/:id/active', (context) => {
      const { active } = bodyOf(context, activeBody, '{"active": false}');
      const host = setHostActive(state, context.params.id ?? '', active, context.now);
      return json(200, target(host, 'host', isActiveHost(host)));
    }),

    publicRoute('POST', '/attacks', (context) => {
      const body = bodyOf(context, attackBody, '{"team": "Platform", "type": "cpu", "args": ["-l", "60"]}');
      const teamId = teamOf(body.team);
      if (body.createUser !== undefined && !state.userByEmail(body.createUser))
        throw badRequest(`createUser: no user ${body.createUser}`);
      let guid: string;
      try {
        guid = ops.createAttackDirectly(teamId, {
          ...(body.type !== undefined ? { type: body.type } : {}),
          ...(body.args !== undefined ? { args: body.args } : {}),
          ...(body.target !== undefined ? { target: body.target } : {}),
          ...(body.createUser !== undefined ? { createUser: body.createUser } : {}),
        });
      } catch (error) {
        if (error instanceof z.ZodError)
          throw badRequest(
            'target: not a target of platform-api.md (e.g. {"type": "Random", "tags": {"role": "web"}})',
          );
        throw error;
      }
      return json(201, { guid, teamId });
    }),
  ];
}

/** A JSON object body checked against a schema; every problem is a 400 that shows the expected shape. */
function bodyOf<S extends z.ZodType>(context: RequestContext, schema: S, example: string): z.infer<S> {
  const { body } = context;
  if (body.isEmpty) throw badRequest(`send a JSON body such as ${example}`);
  if (!body.contentType.endsWith('json'))
    throw new SimHttpError(
      415,
      `Unsupported media type: send Content-Type: application/json with a body such as ${example}`,
    );
  let value: unknown;
  try {
    value = JSON.parse(body.raw);
  } catch {
    throw badRequest(`the body is not valid JSON; send one such as ${example}`);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'body';
  throw badRequest(`${where}: ${issue?.message ?? 'invalid'}; send a body such as ${example}`);
}

/** Answers a request under `/_control`; `path` is what follows the prefix. */
export function createControlHandler(ops: ControlOperations): (context: RequestContext) => Reply | Promise<Reply> {
  const router = new Router(controlRoutes(ops));
  return (context) => {
    const match = router.match(context.method, context.path);
    if (match.kind === 'none')
      return json(404, { error: `No control endpoint ${context.method} ${controlPrefix}${context.path}`, endpoints });
    if (match.kind === 'wrongMethod') {
      const reply = json(405, {
        error: `${controlPrefix}${context.path} answers ${match.allowed.join(', ')}`,
        endpoints,
      });
      return { ...reply, headers: { ...reply.headers, allow: match.allowed.join(', ') } };
    }
    return match.route.handle({ ...context, params: match.params }, {});
  };
}
