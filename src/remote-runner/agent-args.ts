// The arguments of `blitz-bot runner` (the agent), checked at the boundary. Apart from cli.ts so that
// `runner --help` starts without loading zod.
import { z } from 'zod';
import { AppError } from '../errors.ts';

export const agentArgs = z.object({
  server: z.string().min(1, 'is required'),
  token: z.string().min(1, 'is required'),
  repos: z.array(z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'entries must be owner/name')).min(1, 'is required'),
  roles: z.array(z.enum(['blitz', 'fleet', 'plan', 'review'])).min(1),
  workspace: z.string().min(1).optional(),
  maxSessions: z.coerce.number().int().min(1).max(256).optional(),
  pollMs: z.coerce.number().int().min(50).optional(),
  /** How often the agent checks its workers (exits, stalls) and flushes its buffer. */
  tickMs: z.coerce.number().int().min(50).max(60_000).optional(),
  tools: z.array(z.string().min(1)).optional(),
  config: z.string().optional(),
});

export const agentArgsError = (error: z.ZodError, usage: string): AppError => {
  const i = error.issues[0];
  return new AppError(
    'config_invalid',
    `--${String(i?.path[0] ?? 'arguments')}: ${i?.message ?? 'invalid'}\n${usage}`,
  );
};
