import { companyRoles, teamRoles } from '../roles.ts';
import { json, notFound, sessionRoute, type Route } from '../route.ts';

export const roleRoutes: Route[] = [
  sessionRoute('GET', '/roles', () =>
    json(200, { team_roles: Object.values(teamRoles), company_roles: Object.values(companyRoles) }),
  ),
  sessionRoute('GET', '/roles/:roleId', ({ params }) => {
    const role = [...Object.values(teamRoles), ...Object.values(companyRoles)].find(
      (candidate) => candidate.id === params.roleId,
    );
    if (!role) throw notFound();
    return json(200, role);
  }),
];
