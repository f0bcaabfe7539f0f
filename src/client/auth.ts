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
  /**
   * Starts a single sign-on: the identity provider's URL to send the person's browser to, which
   * sends it back to `redirectUri` with a `code` and the `state` it carries. 400 for a company
   * without SSO.
   */
  startSso(input: { companyName: string; redirectUri: string }): Promise<string>;
  /** Exchanges the provider's one-time code and the state for a company session; 401 once used or expired. */
  finishSso(input: { code: string; state: string }): Promise<CompanySession>;
  /** Why the company's recent SSO sign-ins failed, newest first (COMPANY_SECURITY_READ). */
  ssoFailures(ctx: CallContext, email?: string): Promise<SsoFailure[]>;
}

const ssoFailureSchema = z.looseObject({ email: z.string(), timestamp: z.string(), reason: z.string() });
export type SsoFailure = z.infer<typeof ssoFailureSchema>;

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
    startSso: ({ companyName, redirectUri }) =>
      request({
        method: 'GET',
        path: '/oauth/login',
        query: { companyName, redirectUri },
        schema: z
          .string()
          .trim()
          .pipe(z.url({ protocol: /^https?$/ })),
      }),
    // The code works once: a repeated call would only be refused.
    finishSso: ({ code, state }) =>
      request({
        method: 'GET',
        path: '/oauth/callback',
        query: { code, state, getCompanySession: 'true' },
        idempotent: false,
        schema: companySessionSchema,
      }),
    ssoFailures: (ctx, email) =>
      request({
        method: 'GET',
        path: '/users/auth/saml/failures',
        session: ctx,
        teamScoped: false,
        query: { email },
        schema: z.array(ssoFailureSchema),
      }),
  };
}
