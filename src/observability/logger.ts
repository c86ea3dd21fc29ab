// The one logger: pino JSON lines, a fixed message and the details as fields. Secrets are redacted
// by path so a token that slips into a log object never reaches the output.
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

export const redactPaths = [
  'token',
  'password',
  'secret',
  'privateKey',
  'authorization',
  '*.token',
  '*.password',
  '*.secret',
  '*.privateKey',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
];

export const createLogger = (opts: { level?: string; destination?: DestinationStream } = {}): Logger =>
  pino(
    {
      level: opts.level ?? 'info',
      base: { app: 'blitz-bot' },
      redact: { paths: redactPaths, censor: '[redacted]' },
    },
    opts.destination,
  );

/** A logger that writes nothing, for tests that do not look at logs. */
export const silentLogger = (): Logger => pino({ level: 'silent' });
