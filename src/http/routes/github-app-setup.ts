// GitHub App registration the way Probot offers it, for a bot started without APP_ID: GET /probot
// serves a page whose button POSTs the manifest from app.yml to GitHub's /settings/apps/new; GitHub
// sends the browser back to /probot/setup?code=…, where the code is exchanged (Probot's
// ManifestCreation) for the app id, key and webhook secret, written to .env for the next start.
import { Hono } from 'hono';
import { html } from 'hono/html';
import { HTTPException } from 'hono/http-exception';

export interface GithubAppSetupOptions {
  /** The manifest from app.yml (name, url, default_events, default_permissions …). */
  manifest: Record<string, unknown>;
  /** `https://github.com/settings/apps/new`, or the GHE / organisation equivalent. */
  createAppUrl: string;
  /** Where GitHub should deliver webhooks; defaults to this server's /api/github/webhooks. */
  webhookUrl?: string;
  /** Exchange the one-time code for the app's credentials; returns the new app's html_url. */
  convert: (code: string) => Promise<string>;
}

export const githubAppSetupRoutes = (opts: GithubAppSetupOptions) =>
  new Hono()
    .get('/', (c) => {
      const origin = new URL(c.req.url).origin;
      const manifest = JSON.stringify({
        ...opts.manifest,
        hook_attributes: { url: opts.webhookUrl ?? `${origin}/api/github/webhooks` },
        redirect_url: `${origin}/probot/setup`,
      });
      return c.html(html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Register blitz-bot as a GitHub App</title></head>
<body>
<h1>Register blitz-bot as a GitHub App</h1>
<p>This bot has no <code>APP_ID</code> yet. The button below registers a GitHub App from <code>app.yml</code>;
GitHub then sends you back here and the app id, private key and webhook secret are written to <code>.env</code>.
Restart the bot afterwards.</p>
<form action="${opts.createAppUrl}" method="post">
<input type="hidden" name="manifest" value="${manifest}">
<button type="submit">Register GitHub App</button>
</form>
<p>Using Gitea instead? Set <code>GITEA_URL</code>, <code>GITEA_TOKEN</code> and <code>GITEA_WEBHOOK_SECRET</code>.</p>
</body></html>`);
    })
    .get('/setup', async (c) => {
      const code = c.req.query('code');
      if (!code || !/^[A-Za-z0-9_-]{1,200}$/.test(code)) {
        throw new HTTPException(400, { message: 'missing or malformed code parameter' });
      }
      const htmlUrl = await opts.convert(code);
      return c.redirect(`${htmlUrl}/installations/new`, 302);
    });
