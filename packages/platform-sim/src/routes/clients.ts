import { clientResponses } from '../clients.ts';
import { json, teamRoute, type Route } from '../route.ts';

/** GET /clients answers a bare array (platform-contract.md, Clients): it is not paged. */
export const clientRoutes: Route[] = [
  teamRoute('GET', '/clients', 'EXPERIMENTS_READ', ({ state, team, now }) =>
    json(200, clientResponses(state, team.id, now)),
  ),
];
