import { z } from 'zod';
import type { CallContext, Request } from './request.ts';
import { type CompanySession, companySessionSchema } from './schemas.ts';

export interface LoginInput {
  email: string;
  password: string;
  /** Needed when the user belongs to several companies. */
  companyName?: string | undefined;
  /** The current one-time code, for users with MFA. */
  mfaCode?: string | undefined;
}

export interface AuthApi {
  /** A company session, which works across the user's teams (with `teamId`). */
  login(input: LoginInput): Promise<CompanySession>;
  /** Invalidates the session on the platform. */
  logout(ctx: CallContext): Promise<void>;
  /** Asks the platform to e-mail a password reset. */
  resetPassword(email: string): Promise<void>;
}

// Logins and resets are POSTs, so they are never retried: a repeated login could trip lockouts,
// a repeated reset sends two e-mails.
function loginCall(input: LoginInput) {
  const mfaCode = input.mfaCode?.trim() || undefined;
  return {
    method: 'POST',
    path: mfaCode === undefined ? '/users/auth' : '/users/auth/mfa/auth',
    query: { getCompanySession: 'true' },
    form: { email: input.email, password: input.password, companyName: input.companyName || undefined, token: mfaCode },
  } as const;
}

export function authApi(request: Request): AuthApi {
  return {
    login: (input) => request({ ...loginCall(input), schema: companySessionSchema }),
    async logout(ctx) {
      await request({ method: 'DELETE', path: '/users/auth', session: ctx, schema: z.unknown() });
    },
    async resetPassword(email) {
      await request({ method: 'POST', path: '/users/auth/password/reset', form: { email }, schema: z.unknown() });
    },
  };
}
