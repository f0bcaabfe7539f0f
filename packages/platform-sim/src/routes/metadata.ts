import { attackCatalogue } from '../catalogue.ts';
import { json, teamRoute, type Route } from '../route.ts';

export const metadataRoutes: Route[] = [
  teamRoute('GET', '/metadata', 'MINIMUM_TEAM_PRIVILEGES', () => json(200, attackCatalogue)),
];
