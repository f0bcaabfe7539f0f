import { randomBytes } from 'node:crypto';
import { badRequest, notFound, SimHttpError, type Reply, type RequestContext } from './route.ts';

/** Where the simulator plays the demo company's identity provider: outside the platform API. */
export const idpPrefix = '/_idp';

/** How long a started sign-in and a code the provider hands out are good for. */
export const oauthLifetimeMs = 10 * 60_000;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const page = (body: string): Reply => ({
  status: 200,
  headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
  body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in · Demo identity provider</title></head><body><main>${body}</main></body></html>`,
});

const redirect = (to: URL): Reply => ({ status: 302, headers: { location: to.toString() }, body: '' });

/**
 * The demo company's identity provider, as far as the OAuth flow needs one: `GET authorize`
 * shows a sign-in page for a login the platform started (GET /oauth/login), listing the
 * company's people who sign in this way; `POST authorize` signs one in (or cancels) and sends
 * the browser back to the redirect URI with a one-time `code` and the `state`, or an `error`.
 */
export function identityProvider(context: RequestContext): Reply {
  if (context.path !== '/authorize') throw notFound();
  const params = context.method === 'POST' ? context.body.form() : new URLSearchParams();
  const stateId = (context.method === 'POST' ? params.get('state') : String(context.query['state'] ?? '')) || undefined;
  const started = stateId ? context.state.oauthStates.get(stateId) : undefined;
  if (!stateId || !started || started.used || started.expiresAt <= context.now)
    throw new SimHttpError(400, 'This sign-in has expired or was already used. Start again from the application.');
  const company = context.state.companies.get(started.companyId)!;
  const people = [...context.state.users.values()].filter((u) => u.companyId === company.id && u.password === '');
  const back = new URL(started.redirectUri);
  back.searchParams.set('state', stateId);

  if (context.method === 'GET') {
    const buttons = people
      .map(
        (u) =>
          `<button type="submit" name="email" value="${escapeHtml(u.email)}">Sign in as ${escapeHtml(u.email)}</button>`,
      )
      .join('\n');
    return page(
      `<h1>Sign in to ${escapeHtml(company.name)}</h1>
<p>The demo identity provider of ${escapeHtml(company.name)}: its people sign in here, without a platform password.</p>
<form method="post" action="${idpPrefix}/authorize">
<input type="hidden" name="state" value="${escapeHtml(stateId)}">
${buttons}
<button type="submit" name="cancel" value="1">Cancel</button>
</form>`,
    );
  }
  if (context.method !== 'POST') throw new SimHttpError(405, 'Method not allowed');
  if (params.get('cancel')) {
    back.searchParams.set('error', 'access_denied');
    back.searchParams.set('error_description', 'The person cancelled the sign-in');
    return redirect(back);
  }
  const user = people.find((u) => u.email === params.get('email'));
  if (!user) throw badRequest('choose one of the people listed');
  const code = randomBytes(24).toString('base64url');
  context.state.oauthCodes.set(code, {
    userId: user.id,
    state: stateId,
    expiresAt: context.now + oauthLifetimeMs,
    used: false,
  });
  back.searchParams.set('code', code);
  return redirect(back);
}
