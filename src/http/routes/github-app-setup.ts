// GitHub App registration the way Probot offers it, for a bot started without APP_ID: GET /probot
// serves a page whose button POSTs the manifest from app.yml to GitHub's /settings/apps/new (or, with
// `?org=NAME`, the organisation's /organizations/NAME/settings/apps/new); GitHub sends the browser back
// to /probot/setup?code=…, where the code is exchanged (Probot's ManifestCreation) for the app id, key
// and webhook secret, written to .env for the next start. A failed exchange is a page saying why and
// what to do, never a bare 500.
import type { Context } from 'hono';
import { Hono } from 'hono';
import { html } from 'hono/html';
import { HTTPException } from 'hono/http-exception';
import { type RegistrationFailure, registrationFailure } from '../../config/github-app-registration.ts';
import type { Logger } from '../../observability/logger.ts';

export interface GithubAppSetupOptions {
  /** The manifest from app.yml (name, url, default_events, default_permissions …). */
  manifest: Record<string, unknown>;
  /** Where people use GitHub: `https://github.com`, or the GitHub Enterprise Server origin. */
  githubUrl: string;
  /** Where GitHub should deliver webhooks; defaults to this server's /api/github/webhooks. */
  webhookUrl?: string;
  /**
   * `TRUST_PROXY=true`: this server is reached only through a reverse proxy, so its public address is
   * the one `X-Forwarded-Proto` and `X-Forwarded-Host` name. Off, those headers are ignored (anyone
   * could send them).
   */
  trustProxy?: boolean;
  /** Exchange the one-time code for the app's credentials; returns the new app's html_url. */
  convert: (code: string) => Promise<string>;
  logger?: Pick<Logger, 'warn'>;
}

// GitHub's login rules: letters, digits and single hyphens, at most 39 characters.
const orgName = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const hostPort =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

const firstOf = (header: string | undefined): string | undefined =>
  header?.split(',')[0]?.trim() || undefined;

/** This server's address as the browser and GitHub reach it. */
export const publicOrigin = (c: Context, trustProxy: boolean): string => {
  const url = new URL(c.req.url);
  if (!trustProxy) return url.origin;
  const proto = firstOf(c.req.header('x-forwarded-proto'))?.toLowerCase();
  const host = firstOf(c.req.header('x-forwarded-host'));
  const scheme = proto === 'https' || proto === 'http' ? proto : url.protocol.slice(0, -1);
  return `${scheme}://${host && hostPort.test(host) ? host : url.host}`;
};

const failurePage = (f: RegistrationFailure) => html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GitHub App registration failed</title></head>
<body>
<h1>GitHub App registration did not finish</h1>
<p id="why">${f.why}</p>
<p id="next">${f.next}</p>
<p><a href="/probot">Start again</a></p>
</body></html>`;

export const githubAppSetupRoutes = (opts: GithubAppSetupOptions) => {
  const github = opts.githubUrl.replace(/\/+$/, '');
  return new Hono()
    .get('/', (c) => {
      const org = c.req.query('org')?.trim() || undefined;
      if (org !== undefined && !orgName.test(org))
        throw new HTTPException(400, { message: 'org must be a GitHub organisation login' });
      const origin = publicOrigin(c, opts.trustProxy === true);
      const manifest = JSON.stringify({
        ...opts.manifest,
        hook_attributes: { url: opts.webhookUrl ?? `${origin}/api/github/webhooks` },
        redirect_url: `${origin}/probot/setup`,
      });
      const action = org
        ? `${github}/organizations/${encodeURIComponent(org)}/settings/apps/new`
        : `${github}/settings/apps/new`;
      return c.html(html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Register blitz-bot as a GitHub App</title></head>
<body>
<h1>Register blitz-bot as a GitHub App</h1>
<p>This bot has no <code>APP_ID</code> yet. The button below registers a GitHub App from <code>app.yml</code>
${org ? html`owned by the organisation <strong>${org}</strong>` : 'owned by your own account'};
GitHub then sends you back here and the app id, private key and webhook secret are written to <code>.env</code>.
Restart the bot afterwards.</p>
<form id="register" action="${action}" method="post">
<input type="hidden" name="manifest" value="${manifest}">
<button type="submit">Register GitHub App</button>
</form>
<form id="owner" action="/probot" method="get">
<label>Register under an organisation instead (you must be one of its owners or app managers):
<input name="org" value="${org ?? ''}" placeholder="organisation login" pattern="[A-Za-z0-9-]{1,39}"></label>
<button type="submit">Use this organisation</button>
</form>
<p>GitHub delivers webhooks to <code>${opts.webhookUrl ?? `${origin}/api/github/webhooks`}</code>. Behind a
reverse proxy that terminates TLS, set <code>TRUST_PROXY=true</code> so this address follows its
<code>X-Forwarded-Proto</code> and <code>X-Forwarded-Host</code>.</p>
<p>Using Gitea instead? Set <code>GITEA_URL</code>, <code>GITEA_TOKEN</code> and <code>GITEA_WEBHOOK_SECRET</code>.</p>
</body></html>`);
    })
    .get('/setup', async (c) => {
      const code = c.req.query('code');
      if (!code || !/^[A-Za-z0-9_-]{1,200}$/.test(code)) {
        throw new HTTPException(400, { message: 'missing or malformed code parameter' });
      }
      let htmlUrl: string;
      try {
        htmlUrl = await opts.convert(code);
      } catch (err) {
        const failure = registrationFailure(err);
        opts.logger?.warn({ err, kind: failure.kind }, 'GitHub App registration failed');
        return c.html(failurePage(failure), failure.status);
      }
      return c.redirect(`${htmlUrl}/installations/new`, 302);
    });
};
