// The request journal as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): opens in browser devtools
// (Network › Import HAR) and HAR viewers. Built from journal entries, so secrets stay redacted.
import { STATUS_CODES } from 'node:http';
import type { Finding, Har, JournalEntry } from '../schemas/control.js';
import type { LazyList } from '../shared/json-stream.js';

const bytes = (text: string) => Buffer.byteLength(text);

/**
 * A journaled URL made absolute with the first base the URL parser takes: the journal keeps the Host as it came (two
 * of them, bad bytes), and one entry must not break the export.
 */
function absoluteUrl(url: string, bases: string[]): URL {
  for (const base of bases) {
    const u = URL.parse(url, base);
    if (u) return u;
  }
  return URL.parse(url, 'http://localhost') ?? new URL('http://localhost/');
}

/** A body the journal gives as text (cut, malformed, nested too deep) is that text; a parsed one is JSON again. */
const asText = (body: unknown): string | null =>
  body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body);

type HarEntry = Har['log']['entries'][number];

/** A HAR whose entries are made as the export writes them (src/shared/json-stream.ts): its JSON is the Har's. */
export type StreamedHar<S> = { log: Omit<Har['log'], 'entries'> & { entries: LazyList<S, HarEntry> } };

/**
 * `entries` oldest first (as a browser records them: Journal.listed's 'oldest'); URLs made absolute with the Host the
 * client used; findings as notes. Each entry is read back and made when the export reaches it, so a full journal is
 * converted in the writer's slices, not in one turn.
 */
export function journalToHar<S>(
  entries: LazyList<S, JournalEntry>,
  opts: { protocol: string; fallbackHost: string; version: string; sandbox: string; findings: Finding[] },
): StreamedHar<S> {
  // by request, once: a filter of every finding per entry was entries × findings
  const findingsOf = new Map<number, Finding[]>();
  for (const f of opts.findings) {
    const list = findingsOf.get(f.requestId);
    if (list) list.push(f);
    else findingsOf.set(f.requestId, [f]);
  }
  const harEntries = entries.map((e): HarEntry => {
    const findings = findingsOf.get(e.id) ?? [];
    const host = e.requestHeaders.host ?? opts.fallbackHost;
    const url = absoluteUrl(e.url, [`${opts.protocol}://${host}`, `http://${opts.fallbackHost}`]);
    const headers = Object.entries(e.requestHeaders).map(([name, value]) => ({ name, value }));
    const requestText = asText(e.requestBody);
    const responseText = asText(e.responseBody);
    const mimeType = responseText === null ? 'x-unknown' : 'application/json; charset=utf-8';
    return {
      startedDateTime: e.at,
      time: e.durationMs,
      request: {
        method: e.method,
        url: url.href,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers,
        queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
        ...(requestText !== null
          ? { postData: { mimeType: e.requestHeaders['content-type'] ?? 'application/json', text: requestText } }
          : {}),
        headersSize: -1,
        bodySize: requestText === null ? 0 : bytes(requestText),
      },
      response: {
        status: e.status,
        statusText: STATUS_CODES[e.status] ?? '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: [
          ...(responseText === null ? [] : [{ name: 'content-type', value: mimeType }]),
          ...(findings.length ? [{ name: 'x-mock-finding', value: findings.map((f) => f.code).join(', ') }] : []),
        ],
        content: {
          size: responseText === null ? 0 : bytes(responseText),
          mimeType,
          ...(responseText !== null ? { text: responseText } : {}),
        },
        redirectURL: '',
        headersSize: -1,
        bodySize: responseText === null ? -1 : bytes(responseText),
      },
      cache: {},
      timings: { send: 0, wait: e.durationMs, receive: 0 },
      comment: [
        `#${e.id}`,
        e.operationId ?? 'no operation',
        e.scenario ? `scenario ${e.scenario}` : '',
        e.stubbed ? 'stubbed by the scenario' : '',
        e.fault
          ? `fault ${e.fault}${e.afterCommit ? ' after the commit: the change happened, the client got no whole answer' : ''}`
          : '',
        ...findings.map((f) => `finding ${f.code} (${f.severity}): ${f.message} ${f.docs}`),
      ]
        .filter(Boolean)
        .join(' · '),
    };
  });
  return {
    log: {
      version: '1.2' as const,
      creator: { name: 'portal-mock', version: opts.version },
      pages: [],
      entries: harEntries,
      comment: `request journal of sandbox ${opts.sandbox}; secrets redacted`,
    },
  };
}
