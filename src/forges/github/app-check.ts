// `blitz-bot doctor`'s look at the GitHub App credentials: the App's own JWT must read `GET /app`
// (the id and key belong together) and `GET /app/installations` (where it is installed). Answers
// are checked with zod; the key never leaves this module.
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { z } from 'zod';

const appSchema = z.object({ slug: z.string().optional(), name: z.string() });
const installationsSchema = z.array(
  z.object({ id: z.number(), account: z.object({ login: z.string() }).nullable().optional() }),
);

export interface GithubAppCheck {
  app: string;
  installations: string[];
}

export const checkGithubApp = async (opts: {
  baseUrl: string;
  appId: string;
  privateKey: string;
}): Promise<GithubAppCheck> => {
  const octokit = new Octokit({
    authStrategy: createAppAuth,
    auth: { appId: opts.appId, privateKey: opts.privateKey },
    baseUrl: opts.baseUrl,
    userAgent: 'blitz-bot',
  });
  const app = appSchema.parse((await octokit.request('GET /app')).data);
  const installations = installationsSchema.parse(
    (await octokit.request('GET /app/installations', { per_page: 100 })).data,
  );
  return {
    app: app.slug ?? app.name,
    installations: installations.map((i) => i.account?.login ?? `installation ${i.id}`),
  };
};
