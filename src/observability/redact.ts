// Secrets out of everything the bot writes for people to read: attempt logs and final reports on the
// status pages and in report.html, comments, issue and pull request bodies. A worker runs model output
// over untrusted text and may print whatever it can reach; the bot replaces, at the point of writing,
// every configured secret value (and the forms it is commonly printed in) and every credential shape it
// knows (GitHub tokens, runner tokens, Authorization headers, PEM blocks).

/** Text in, the same text with every secret replaced by `[redacted]`. */
export type Redact = (text: string) => string;

export const redacted = '[redacted]';

/** Shorter values would redact ordinary words; every secret the bot is configured with is longer. */
const minSecretLength = 8;

// GitHub: ghp_ (classic PAT), gho_ (OAuth), ghu_ (user-to-server), ghs_ (installation), ghr_ (refresh),
// github_pat_ (fine-grained PAT). brt_: this bot's runner tokens.
const tokenShapes: RegExp[] = [
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bbrt_[0-9a-f]{16}_[A-Za-z0-9_-]{20,}/g,
];

// A PEM block, or its start when the text was cut before its end.
const pemBlock = /-----BEGIN [A-Z0-9 ]{1,40}-----[\s\S]*?(?:-----END [A-Z0-9 ]{1,40}-----|$)/g;

// `Authorization: <anything>` (an HTTP header, git's http.extraheader), up to the end of the line.
const authorizationHeader = /\b(authorization\s*[:=]\s*)[^\r\n]+/gi;
// `Bearer <token>`: only a token-like word (long, or with a digit), so "Bearer tokens" stays.
const bearer = /\b(bearer\s+)([A-Za-z0-9._~+/-]+=*)/gi;
// `Basic <base64>`: only when it decodes to `user:password`, so "Basic usage" stays.
const basic = /\b(basic\s+)([A-Za-z0-9+/]{6,}={0,2})/gi;

const looksLikeCredentials = (b64: string): boolean => {
  const decoded = Buffer.from(b64, 'base64').toString('utf8');
  return /^[^\s:]{1,200}:\S+$/.test(decoded);
};

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The ways a secret value is commonly printed: as is, `\n`-escaped, base64 (alone or as `x:secret`), its PEM lines. */
const formsOf = (secret: string): string[] => {
  const forms = [secret, secret.replace(/\n/g, '\\n'), Buffer.from(secret).toString('base64')];
  // A PEM's body lines on their own (a worker that prints part of a key file).
  for (const line of secret.split('\n')) if (line.trim().length >= 16) forms.push(line.trim());
  return forms;
};

/**
 * A redactor for `secrets` (the configured values: forge tokens, webhook secrets, status token,
 * private key…) and the known credential shapes. Values shorter than 8 characters are ignored.
 */
export const createRedactor = (secrets: readonly (string | undefined)[]): Redact => {
  const values = [
    ...new Set(
      secrets
        .filter((s): s is string => typeof s === 'string' && s.trim().length >= minSecretLength)
        .flatMap(formsOf)
        .filter((f) => f.length >= minSecretLength),
    ),
  ].sort((a, b) => b.length - a.length);
  // One alternation, longest first, so a value containing another is replaced whole.
  const exact = values.length > 0 ? new RegExp(values.map(escapeRegExp).join('|'), 'g') : undefined;
  return (text) => {
    let out = text;
    if (exact) out = out.replace(exact, redacted);
    out = out.replace(pemBlock, redacted);
    for (const shape of tokenShapes) out = out.replace(shape, redacted);
    out = out.replace(authorizationHeader, `$1${redacted}`);
    out = out.replace(bearer, (whole, head: string, value: string) =>
      value.length < 16 && !/\d/.test(value) ? whole : `${head}${redacted}`,
    );
    out = out.replace(basic, (whole, head: string, value: string) =>
      looksLikeCredentials(value) ? `${head}${redacted}` : whole,
    );
    return out;
  };
};

/** Redacts every string inside a JSON-like value (a stored final report, a list of lines). */
export const redactDeep = <T>(value: T, redact: Redact): T => {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact)) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact)])) as T;
  return value;
};
