import type { CallContext, Request } from './request.ts';
import { type Role, type Roles, roleSchema, rolesSchema } from './schemas.ts';

export interface RolesApi {
  /** Every team-level and company-level role with its privileges. */
  list(): Promise<Roles>;
  get(roleId: string): Promise<Role>;
}

// Roles are company-level: no teamId.
export function rolesApi(request: Request, session: CallContext): RolesApi {
  return {
    list: () => request({ session, method: 'GET', path: '/roles', schema: rolesSchema }),
    get: (roleId) =>
      request({ session, method: 'GET', path: '/roles/{roleId}', params: { roleId }, schema: roleSchema }),
  };
}
