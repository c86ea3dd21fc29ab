// The runner registry port: bearer tokens of runner agents (stored as sha256, compared in constant
// time), what each runner advertised, and receipts of the attempt reports applied from runners.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** What a runner advertises when it registers (checked at the HTTP edge and on read). */
export const runnerAdvertSchema = z
  .object({
    tools: z.array(z.string().min(1)).max(50),
    roles: z.array(z.enum(['blitz', 'fleet', 'plan', 'review'])).max(4),
    repos: z.array(z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'must be owner/name')).max(500),
    maxSessions: z.number().int().min(1).max(256),
    version: z.string().max(100).optional(),
  })
  .strict();

/** Tools found on the host, roles it takes (blitz, fleet, plan, review), repos `owner/name` it serves. */
export type RunnerAdvert = z.infer<typeof runnerAdvertSchema>;

export interface RunnerTokenInfo {
  id: string;
  name: string;
  createdAt: string;
  revokedAt?: string;
  /** The bot's time of the runner's last request (written at most every `seenEverySeconds`). */
  lastSeenAt?: string;
  /** When the bot marked it lost (unheard of for too long); cleared when it is heard again. */
  lostAt?: string;
  /** Its clock minus the bot's at its last request, in ms, when it sent its clock. */
  clockSkewMs?: number;
  advert?: RunnerAdvert;
}

/** A runner's last-seen time is written at most this often (a claim every second writes nothing). */
export const seenEverySeconds = 5;

/** Whether a request from `runner` at `at` should be written down (`seen`): stale, lost, or a new skew. */
export const worthNoting = (runner: RunnerTokenInfo, at: Date, clockSkewMs: number | undefined): boolean => {
  if (!runner.lastSeenAt || runner.lostAt) return true;
  if (at.getTime() - Date.parse(runner.lastSeenAt) >= seenEverySeconds * 1000) return true;
  return clockSkewMs !== undefined && Math.abs(clockSkewMs - (runner.clockSkewMs ?? 0)) > 1000;
};

/** The last report applied for an attempt, and where the attempt came from. */
export interface AttemptReceipt {
  attemptId: string;
  runId: string;
  /** `owner/name` */
  issueRepo: string;
  issueNumber: number;
  jobQueue: string;
  jobId: string;
  runnerName: string;
  lastSeq: number;
}

export interface RunnerRegistry {
  /** A new token for `name`, returned once; `conflict` when `name` already has a live token. */
  createToken(name: string): Promise<{ info: RunnerTokenInfo; token: string }>;
  /** Revokes the live token of `name`; false when there was none. */
  revokeToken(name: string): Promise<boolean>;
  listTokens(): Promise<RunnerTokenInfo[]>;
  /** The live token's runner, or undefined for a malformed, unknown or revoked token. */
  authenticate(token: string): Promise<RunnerTokenInfo | undefined>;
  advertise(id: string, advert: RunnerAdvert, at: string): Promise<void>;
  /** The runner was heard from at `at` (the bot's clock): it is live again; its clock's offset, if sent. */
  seen(id: string, at: string, clockSkewMs?: number): Promise<void>;
  /**
   * Marks lost every live runner last heard from before `cutoff`, in one guarded UPDATE: each is
   * returned to exactly one caller, however many replicas ask at once.
   */
  markLost(cutoff: string, at: string): Promise<RunnerTokenInfo[]>;
  getReceipt(attemptId: string): Promise<AttemptReceipt | undefined>;
  listReceiptsByJob(jobQueue: string, jobId: string): Promise<AttemptReceipt[]>;
  /** Inserts the receipt, or raises its lastSeq. */
  saveReceipt(r: AttemptReceipt, at: string): Promise<void>;
  close(): Promise<void>;
}

const tokenShape = /^brt_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** A fresh token `brt_<id>_<secret>`: the id finds the row, only the secret's hash is stored. */
export const newRunnerToken = (): { id: string; token: string; hash: string } => {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, token: `brt_${id}_${secret}`, hash: hashSecret(secret) };
};

export const parseRunnerToken = (token: string): { id: string; secret: string } | undefined => {
  const m = tokenShape.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
};

/** Constant-time comparison of a presented secret with a stored sha256 hex digest. */
export const secretMatches = (secret: string, storedHash: string): boolean => {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
};
