/** Privileges and built-in roles of the platform, as `GET /roles` reports them. */

export const teamPrivileges = [
  'EXPERIMENTS_READ',
  'EXPERIMENTS_RUN',
  'EXPERIMENTS_WRITE',
  'HALT_WRITE',
  'MINIMUM_TEAM_PRIVILEGES',
  'INTEGRATIONS_READ',
  'INTEGRATIONS_WRITE',
  'READ_TEAM_USERS',
  'TEAM_DEFAULT',
] as const;

export const companyPrivileges = [
  'HALT_ALL',
  'COMPANY_INTEGRATIONS_READ',
  'COMPANY_INTEGRATIONS_WRITE',
  'COMPANY_USERS_WRITE',
  'COMPANY_SECURITY_READ',
  'SECURITY_REPORTS_READ',
  'ROLES_WRITE',
  'MINIMUM_COMPANY_PRIVILEGES',
  'COMPANY_DEFAULT',
] as const;

export type TeamPrivilege = (typeof teamPrivileges)[number];
export type CompanyPrivilege = (typeof companyPrivileges)[number];
export type Privilege = TeamPrivilege | CompanyPrivilege;

export interface Role<P extends Privilege> {
  id: string;
  name: string;
  privileges: readonly P[];
}

const observerPrivileges: readonly TeamPrivilege[] = [
  'EXPERIMENTS_READ',
  'MINIMUM_TEAM_PRIVILEGES',
  'READ_TEAM_USERS',
  'TEAM_DEFAULT',
  'INTEGRATIONS_READ',
];
const basicCompanyPrivileges: readonly CompanyPrivilege[] = ['MINIMUM_COMPANY_PRIVILEGES', 'COMPANY_DEFAULT'];

export const teamRoles = {
  TEAM_OWNER: { id: 'TEAM_OWNER', name: 'TEAM_OWNER', privileges: teamPrivileges },
  TEAM_USER: { id: 'TEAM_USER', name: 'TEAM_USER', privileges: teamPrivileges },
  TEAM_OBSERVER: { id: 'TEAM_OBSERVER', name: 'TEAM_OBSERVER', privileges: observerPrivileges },
} as const satisfies Record<string, Role<TeamPrivilege>>;

export const companyRoles = {
  COMPANY_OWNER: { id: 'COMPANY_OWNER', name: 'COMPANY_OWNER', privileges: companyPrivileges },
  COMPANY_ADMIN: { id: 'COMPANY_ADMIN', name: 'COMPANY_ADMIN', privileges: companyPrivileges },
  COMPANY_USER: { id: 'COMPANY_USER', name: 'COMPANY_USER', privileges: basicCompanyPrivileges },
} as const satisfies Record<string, Role<CompanyPrivilege>>;

export type TeamRoleName = keyof typeof teamRoles;
export type CompanyRoleName = keyof typeof companyRoles;

export function privilegesOfTeamRole(role: TeamRoleName | undefined): readonly TeamPrivilege[] {
  return role ? teamRoles[role].privileges : [];
}

export function privilegesOfCompanyRoles(roles: readonly CompanyRoleName[]): CompanyPrivilege[] {
  return [...new Set(roles.flatMap((role) => companyRoles[role].privileges))];
}
