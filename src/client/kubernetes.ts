import { z } from 'zod';
import type { HaltRequest } from './attacks.ts';
import type { CallContext, Request } from './request.ts';
import { createdIdSchema, type KubernetesAttack, kubernetesAttackSchema } from './schemas.ts';

/** `POST /kubernetes/attacks/new` payload. */
export interface CreateKubernetesAttackInput {
  impactDefinition: { cliArgs: string[] };
  targetDefinition: {
    strategy: {
      k8sObjects: { clusterId: string; namespace: string; kind: string; name: string }[];
      count?: number;
      percentage?: number;
    };
  };
}

export interface KubernetesApi {
  list(query?: { source?: 'Adhoc' | 'Scenario' | undefined }): Promise<KubernetesAttack[]>;
  get(guid: string): Promise<KubernetesAttack>;
  /** Starts a Kubernetes attack and returns its guid. Never retried. */
  create(input: CreateKubernetesAttackInput): Promise<string>;
  halt(uid: string, request?: HaltRequest): Promise<void>;
  /** Halts every active Kubernetes attack the session can reach (company level, no teamId). */
  haltAll(request?: HaltRequest): Promise<void>;
}

export function kubernetesApi(request: Request, session: CallContext): KubernetesApi {
  const team = { session, teamScoped: true } as const;
  return {
    list: (query = {}) =>
      request({
        ...team,
        method: 'GET',
        path: '/kubernetes/attacks',
        query: { source: query.source },
        schema: z.array(kubernetesAttackSchema),
      }),
    get: (guid) =>
      request({
        ...team,
        method: 'GET',
        path: '/kubernetes/attacks/{guid}',
        params: { guid },
        schema: kubernetesAttackSchema,
      }),
    create: (input) =>
      request({ ...team, method: 'POST', path: '/kubernetes/attacks/new', json: input, schema: createdIdSchema }),
    async halt(uid, body) {
      await request({
        ...team,
        method: 'POST',
        path: '/kubernetes/attacks/{uid}/halt',
        params: { uid },
        json: body ?? {},
        idempotent: true,
        schema: z.unknown(),
      });
    },
    async haltAll(body) {
      await request({
        session,
        method: 'POST',
        path: '/kubernetes/attacks/halt',
        json: body ?? {},
        idempotent: true,
        schema: z.unknown(),
      });
    },
  };
}
