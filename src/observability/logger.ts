// The one logger: pino, a fixed message and the details as fields. Secrets are redacted by path so a
// token that slips into a log object never reaches the output. JSON lines when piped (a log collector
// reads them) or with LOG_FORMAT=json; coloured, readable lines on a terminal (pino-pretty, in-process
// and synchronous so a line is out before the process exits).
import { type DestinationStream, type Logger, pino } from 'pino';
import { PinoPretty } from 'pino-pretty';

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

export type LogFormat = 'json' | 'pretty';

/** The format asked for, else pretty when stdout is a terminal and JSON when it is not. */
export const logFormatFor = (asked: LogFormat | undefined, isTty: boolean): LogFormat =>
  asked ?? (isTty ? 'pretty' : 'json');

export const createLogger = (
  opts: { level?: string; format?: LogFormat; destination?: DestinationStream } = {},
): Logger => {
  const isTty = opts.destination === undefined && process.stdout.isTTY === true;
  const destination =
    logFormatFor(opts.format, isTty) === 'pretty'
      ? PinoPretty({
          colorize: isTty,
          sync: true,
          destination: opts.destination ?? 1,
          ignore: 'pid,hostname,app',
          translateTime: 'SYS:HH:MM:ss.l',
        })
      : opts.destination;
  return pino(
    {
      level: opts.level ?? 'info',
      base: { app: 'blitz-bot' },
      redact: { paths: redactPaths, censor: '[redacted]' },
    },
    destination,
  );
};

/** A logger that writes nothing, for tests that do not look at logs. */
export const silentLogger = (): Logger => pino({ level: 'silent' });
