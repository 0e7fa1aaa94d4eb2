/** The one logger (pino). Redaction paths are compiled once; secrets never reach a log line. */
import { pino, type Logger } from 'pino';

export type { Logger };

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'req.headers["x-gl-api-key"]',
  'req.headers["x-sentry-auth"]',
  'req.headers["x-client-auth"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  // At the top level of a log object and one level down.
  ...['api_key', 'apiKey', 'secret', 'password', 'token', 'access_token', 'refresh_token'].flatMap((k) => [k, `*.${k}`]),
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: {
        // Never log query strings: keys may travel in ?key= or ?sentry_key=.
        // Headers are never logged either: they carry keys and cookies.
        req: (req: { method?: string; url?: string; id?: string }) => ({ id: req.id, method: req.method, path: req.url?.split('?')[0] }),
      },
    },
    destination,
  );
}
