import { z } from 'zod';
import type { CallContext, Request } from './request.ts';
import { type TeamClient, teamClientSchema } from './schemas.ts';

export interface ClientsApi {
  /** Every client of the team (GET /clients): hosts with their tags and containers, active or not. */
  list(): Promise<TeamClient[]>;
  /**
   * The clients an attack may target: those the platform does not say are inactive. One the
   * platform says nothing about counts, so that a blast radius is never understated.
   */
  listActive(): Promise<TeamClient[]>;
}

/** GET /clients answers one JSON array, not paged (platform-contract.md, Clients). */
export function clientsApi(request: Request, session: CallContext): ClientsApi {
  const list = () =>
    request({ session, teamScoped: true, method: 'GET', path: '/clients', schema: z.array(teamClientSchema) });
  return {
    list,
    listActive: async () => (await list()).filter((client) => client.active !== false),
  };
}
