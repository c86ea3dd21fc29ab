// The pages a visitor sees before any run data: the login form, and the notice that the status
// page is off (no STATUS_TOKEN). Neither shows anything about runs.
import { html } from 'hono/html';
import { type Html, page } from './html-layout.ts';

export const loginPage = (opts: { next: string; failed: boolean }): Html =>
  page(
    { title: 'Log in' },
    html`<h1>Status page</h1>
<p>Give the status token (STATUS_TOKEN on the bot) to see runs.</p>
${opts.failed ? html`<p id="login-error" class="badge state-failed">That token is not right.</p>` : ''}
<form class="login" method="post" action="/login">
<input type="hidden" name="next" value="${opts.next}">
<label>Token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button type="submit">Log in</button>
</form>`,
  );

export const offPage = (): Html =>
  page(
    { title: 'Status page is off' },
    html`<h1>The status page is off</h1>
<p>It shows private issue titles, so it is served only when the operator sets <code>STATUS_TOKEN</code>.</p>`,
  );
