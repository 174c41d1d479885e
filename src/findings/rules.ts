// The detectors, one entry per finding code: its severity, the operations it looks at (all when absent) and a
// plain function of one request and its answer that returns the finding's sentence, or null. docs/findings.md
// explains each code at length.
import { hash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FindingCode } from '../schemas/control.js';
import { keyPart as part, type FindingLog, type Memo } from '../store/findings.js';
import { header, sessionHeaders } from '../http/context.js';

/** One request as a detector sees it, after its answer was made and before it leaves. */
export type Seen = {
  req: FastifyRequest;
  op: string;
  status: number;
  /** sandbox clock, ms */
  now: number;
  log: FindingLog;
  /** the caller: device, else session, else token, else address */
  who: string;
  /** the answer parsed as JSON (undefined when it is not) */
  answer(): Record<string, unknown> | undefined;
  /** what track() remembered of the sign-in that issued the request's x-service-session-id, if any */
  signIn(): Memo | undefined;
};
export type Rule = { severity: 'warning' | 'error'; ops?: string[]; detect(s: Seen): string | null };

const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const query = (s: Seen, name: string) => text((s.req.query as Record<string, unknown> | undefined)?.[name]);
const body = (s: Seen, name: string) => text((s.req.body as Record<string, unknown> | undefined)?.[name]);
const ok = (s: Seen) => s.status >= 200 && s.status < 300;
// Keys and memos name client values through `part` (bounded, copied: docs/reliability.md), so a key stays under 512
// characters and holds nothing of the request; a value is compared with a memo's text as a part too.
/** "the same request": operation, caller, URL and body (hashed: bodies may be large) */
const sameKey = (s: Seen) => hash('sha1', `${s.op}|${s.who}|${s.req.url}|${bodyText(s.req)}`, 'base64');
/** the body as it arrived (the journal keeps it); without a journal, serialized, where a deep one cannot be */
function bodyText(req: FastifyRequest): string {
  if (req.mock.journal.body !== undefined) return req.mock.journal.body;
  try {
    return JSON.stringify(req.body ?? null);
  } catch {
    return '';
  }
}
/** Whether `key` was seen less than `ms` ago (sandbox clock); remembers now. */
function within(s: Seen, key: string, ms: number): boolean {
  const last = s.log.get(key)?.at;
  s.log.set(key, { at: s.now });
  return last !== undefined && s.now - last < ms;
}
const bearer = (req: FastifyRequest) => /^bearer /i.test(header(req, 'authorization') ?? '');
const sessionModes = new Set(['session', 'session-only', 'session-or-apikey']);
/** Whether the operation authorizes by the session headers: sign-in, tenant-only and Bearer calls ignore them. */
const readsSession = (s: Seen) => sessionModes.has(s.req.mock.routeConfig?.auth ?? 'none') && !bearer(s.req);
/** 403 is also the answer to a wrong e-mail or password: only the mock's message says that the code was missing. */
const codeWasMissing = (s: Seen) =>
  s.status === 403 && /two-factor code required/i.test(text(s.answer()?.message) ?? '');
const timeOfDay = /\d[T ]\d{1,2}:\d{2}/;
const rangeFields = ['created_at', 'last_login_at', 'employment_date', 'fired_date'];
const creates: Record<string, string> = {
  workflowStart: 'ticket',
  ideaEdit: 'idea',
  feedbackAdd: 'feedback',
  calendarEventRequestCreate: 'calendar request',
};
/** a create answer's record id, wherever the operation puts it */
const createdId = (a: Record<string, unknown> | undefined) => {
  const nested = (a?.feedback ?? a?.data) as Record<string, unknown> | null | undefined;
  return text(a?.id) ?? text(nested?.id);
};
/** a retried create counts as a duplicate within this window (sandbox clock) */
const duplicateWindowMs = 60_000;

/** A /mobile/auth that follows a 401 to its device: the protocol asks for it at once, however soon. Used once. */
function reauthAfter401(s: Seen): boolean {
  if (s.op !== 'mobileAuth') return false;
  const key = `reauth:${part(body(s, 'deviceId') ?? 'undefined')}`;
  const after401 = s.log.get(key) !== undefined;
  s.log.delete(key);
  return after401;
}

/**
 * What several detectors need to know of the sign-in protocol: sessions issued, devices unbound, 401s reset, and
 * push tokens forgotten with their device (a bound-again device has none until the app registers it).
 */
export function track(s: Seen): void {
  // a 401 to a session call: the next /mobile/auth of that device is the answer to it, not a retry
  if (s.status === 401 && s.op !== 'mobileAuth') {
    const device = header(s.req, 'x-service-device-id');
    if (device !== undefined) s.log.set(`reauth:${part(device)}`, { n: s.log.seq });
  }
  if (!ok(s)) return;
  if (s.op === 'mobileAuth') {
    const device = body(s, 'deviceId') ?? '';
    s.log.set(`session:${part(text(s.answer()?.sessionId) ?? 'undefined')}`, { s: part(device), n: s.log.seq });
    s.log.set('auth', {});
    for (const [key] of [...s.log.entries(`401:${part(device)}|`)]) s.log.delete(key);
  } else if (s.op === 'mobileUnbind') {
    s.log.set(`unbound:${part(query(s, 'deviceId') ?? 'undefined')}`, { n: s.log.seq, id: s.req.mock.journal.id });
    s.log.delete(`push:${part(query(s, 'deviceId') ?? 'undefined')}`);
  } else if (s.op === 'mobileManualBind' || s.op === 'mobileBind') {
    const device = text((s.answer()?.accountSecret as Record<string, unknown> | undefined)?.deviceId);
    s.log.delete(`push:${part(device ?? 'undefined')}`);
  }
}

export const rules: Record<FindingCode, Rule> = {
  'set-user-list-not-json': {
    severity: 'error',
    ops: ['userListCacheSet'],
    detect: (s) => {
      const type = header(s.req, 'content-type') ?? 'no content type';
      return /^application\/json\b/i.test(type)
        ? null
        : `The body was sent as ${type}: the real portal silently stores an EMPTY selection ` +
            'under the key and still answers 200. Send set-user-list as application/json.';
    },
  },
  'date-range-time-of-day': {
    severity: 'error',
    ops: ['userIndex', 'adminWalletTransactionIndex', 'adminWalletTransactionExportExcel', 'adminEmploymentIndex'],
    detect: (s) => {
      const field = rangeFields.find((f) => timeOfDay.test(query(s, f) ?? ''));
      return field
        ? `${field} carries a time of day: the real portal answers 422 (so does the ` +
            `mock), its ranges take whole days. Send ${field}=yyyy-MM-dd|yyyy-MM-dd.`
        : null;
    },
  },
  'user-index-per-page': {
    severity: 'error',
    ops: ['userIndex'],
    detect: (s) => {
      const v = query(s, 'per-page');
      return v === undefined || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 20)
        ? null
        : `per-page=${v} is outside 1 to 20: the real portal accepts only 1 to 20 on ` +
            '/user/index (the mock answers 400). Ask for at most 20 and follow _meta.pageCount.';
    },
  },
  'admin-per-page-clamped': {
    severity: 'warning',
    ops: ['adminWalletIndex', 'adminWalletTransactionIndex', 'adminEmploymentIndex', 'adminUserApiTokenIndex'],
    detect: (s) => {
      const n = Number(query(s, 'per-page'));
      return n > 100
        ? `per-page=${n}: the real portal clamps administrative indexes to 100, so one page ` +
            `holds 100 items, not ${n}. Read the other pages (page=2 … _meta.pageCount).`
        : null;
    },
  },
  'search-without-right': {
    severity: 'warning',
    ops: ['userSearch'],
    detect: (s) =>
      ok(s) && s.req.mock.auth?.rights.includes('show-structure-names') === false
        ? 'The caller lacks the right show-structure-names: the real portal answers ' +
          '200 with an always empty users list, not an error. Hide search for such ' +
          'users or say that it needs this right, instead of "nobody found".'
        : null,
  },
  'session-headers-missing': {
    severity: 'error',
    detect: (s) => {
      if (!readsSession(s) || header(s.req, 'x-service-client-id') || !s.log.get('auth')) return null;
      const missing = sessionHeaders.filter((h) => header(s.req, h) === undefined);
      if (missing.length === 0) return null;
      const which =
        missing.length === sessionHeaders.length
          ? 'No session headers'
          : `Session header(s) ${missing.join(', ')} missing`;
      return (
        `${which} after /mobile/auth in this sandbox: the real portal answers 401. ` +
        'Send all four x-service-* headers from bind and /mobile/auth on every call.'
      );
    },
  },
  'session-other-device': {
    severity: 'error',
    detect: (s) => {
      if (!readsSession(s)) return null;
      const session = s.signIn();
      const device = header(s.req, 'x-service-device-id');
      return session && device && session.s !== part(device)
        ? `The session was authorized for device ${session.s} but came with device ` +
            `${device}: the real portal answers 401, a session belongs to one device. ` +
            'Send the device id used in /mobile/auth, or authorize this device.'
        : null;
    },
  },
  'session-after-unbind': {
    severity: 'error',
    detect: (s) => {
      // the unbind itself (or its retry after a lost answer) ends the session: it is the sign-out, not a later use
      if (!readsSession(s) || s.op === 'mobileUnbind') return null;
      const session = s.signIn();
      const unbound = session && s.log.get(`unbound:${session.s}`);
      return unbound && (unbound.n ?? 0) > (session.n ?? 0)
        ? `This session's device was unbound (request #${unbound.id}): the real portal ends its sessions ` +
            'and answers 401. After /mobile/unbind, forget the session and the account secret and bind again.'
        : null;
    },
  },
  'unauthorized-loop': {
    severity: 'error',
    detect: (s) => {
      if (s.status !== 401 || s.op === 'mobileAuth') return null;
      // counted per call: the calls a screen sends together all meet the same expired session before the app can react
      const key = `401:${part(s.who)}|${part(`${s.req.method} ${s.req.url}`)}`;
      const n = (s.log.get(key)?.n ?? 0) + 1;
      s.log.set(key, { n });
      return n === 3
        ? 'Third 401 in a row to the same call from this caller with no new /mobile/auth between: the real portal ' +
            'keeps answering 401 to these credentials. On 401, authorize again with POST /mobile/auth (bind again if ' +
            'that answers 404) instead of repeating the call.'
        : null;
    },
  },
  'two-factor-code-missing': {
    severity: 'error',
    ops: ['mobileRequestTwoFactor', 'mobileManualBind'],
    detect: (s) => {
      const key = `2fa:${part(body(s, 'email')?.trim().toLowerCase() ?? 'undefined')}`;
      if (s.op === 'mobileRequestTwoFactor') {
        if (ok(s) && s.answer()?.codeRequired === true) s.log.set(key, {});
        else if (ok(s)) s.log.delete(key);
        return null;
      }
      const flagged = !body(s, 'code') && s.log.get(key) !== undefined;
      if (ok(s)) s.log.delete(key);
      else if (!body(s, 'code') && codeWasMissing(s)) s.log.set(key, {});
      return flagged
        ? 'Manual bind without the code although the account needs one (codeRequired: true): the real portal ' +
            'answers 403 every time. Ask the user for the e-mailed code and repeat manual-bind with it.'
        : null;
    },
  },
  // found when findings are read: findingsOf in plugin.ts
  'upload-never-finished': { severity: 'warning', ops: [], detect: () => null },
  'finish-before-upload': {
    severity: 'error',
    ops: ['fileFinishUpload'],
    detect: (s) => {
      if (ok(s)) {
        const file = s.log.get(`file:${part(query(s, 'id') ?? 'undefined')}`);
        if (file?.s) s.log.delete(file.s);
        s.log.delete(`file:${part(query(s, 'id') ?? 'undefined')}`);
      }
      return s.status === 409
        ? 'finish-upload came before the bytes arrived: the real portal marks a ' +
            'file UPLOADED only once its bytes are there (the mock answers 409). PUT ' +
            'the bytes to uploadUrl and wait for that answer before finish-upload.'
        : null;
    },
  },
  'prepare-new-id': {
    severity: 'warning',
    ops: ['filePrepareUpload'],
    detect: (s) => {
      const id = text(s.answer()?.id);
      if (!ok(s) || !id) return null;
      const key = `prep:${part(s.who)}|${part(body(s, 'name') ?? 'undefined')}|${part(body(s, 'size') ?? 'undefined')}`;
      const before = s.log.get(key)?.s;
      s.log.set(key, { s: part(id) });
      if (!s.log.get(`file:${part(id)}`))
        s.log.set(`file:${part(id)}`, { at: s.now, id: s.req.mock.journal.id, s: key });
      return before && before !== part(id) && s.log.get(`file:${before}`)
        ? `The same file (${body(s, 'name')}) was prepared again with a new id: the real ` +
            'portal is idempotent only for the same id, so each retry leaves one more ' +
            'unfinished record. Retry prepare-upload with the id of the first attempt.'
        : null;
    },
  },
  'push-token-repeated': {
    severity: 'warning',
    ops: ['mobileSavePushToken'],
    detect: (s) => {
      if (!ok(s)) return null;
      const key = `push:${part(body(s, 'deviceId') ?? 'undefined')}`;
      const same = s.log.get(key)?.s === part(body(s, 'token') ?? '');
      s.log.set(key, { s: part(body(s, 'token') ?? '') });
      return same
        ? 'The same push token was registered again for this device: the real portal ' +
            'stores it once more for nothing. Register the token when the push provider ' +
            'issues a new one (its token-refresh callback), not on every start.'
        : null;
    },
  },
  'polling-too-fast': {
    severity: 'warning',
    ops: ['fileProcessingView', 'fileProcessingIndex'],
    // the record by its id; the list by its address, so reading its pages one after another is no poll
    detect: (s) =>
      within(s, `poll:${part(s.who)}|${s.op}|${part(query(s, 'id') ?? s.req.url)}`, 1000)
        ? `Polled ${query(s, 'id') ? 'this record' : 'this list'} again less than a second after the last poll: the ` +
          'real portal processes files in the background for seconds to minutes. Poll at most once a second, better ' +
          'with a growing interval (1 s, 2 s, 4 s …).'
        : null,
  },
  'retry-storm': {
    severity: 'warning',
    detect: (s) => {
      if (s.req.method !== 'POST') return null;
      const answers401 = reauthAfter401(s);
      return within(s, `post:${sameKey(s)}`, 1000) && !answers401
        ? 'The same POST (same operation and body) came again within a second: the real portal carries out each ' +
            'one. Retry only after a failure, with a growing delay, and never while the first call is still running.'
        : null;
    },
  },
  'bearer-on-token-management': {
    severity: 'error',
    ops: [
      'userApiTokenIndex',
      'userApiTokenCreate',
      'userApiTokenRevoke',
      'adminUserApiTokenIndex',
      'adminUserApiTokenRevoke',
    ],
    detect: (s) =>
      bearer(s.req)
        ? 'Token management was called with a Bearer token: the real portal answers 403 here (so does the ' +
          'mock). Call /user-api-token* and /admin/user-api-token* with the session headers from /mobile/auth.'
        : null,
  },
  'wrong-body-type': {
    severity: 'error',
    detect: (s) =>
      s.req.mock.findingTypes && s.status !== 400
        ? `The body sends ${s.req.mock.findingTypes.join('; ')}: the mock's validation ` +
          'converted it (true became "true"), the real portal may refuse it or ' +
          'keep the wrong value. Send every field with the type the API declares.'
        : null,
  },
  'retry-created-duplicate': {
    severity: 'error',
    ops: Object.keys(creates),
    detect: (s) => {
      const answer = s.answer();
      const id = createdId(answer);
      if (!ok(s) || answer?.success === false || (s.op === 'ideaEdit' && query(s, 'id')) || !id) return null;
      const key = `create:${sameKey(s)}`;
      const first = s.log.get(key);
      s.log.set(key, { at: s.now, s: part(id), id: s.req.mock.journal.id });
      return first && first.s !== part(id) && s.now - (first.at ?? 0) <= duplicateWindowMs
        ? `The same ${creates[s.op]} was posted again with the same body after request #${first.id} ` +
            'had created it: the real portal creates a second record. When the answer to a create is ' +
            'lost, look for the record first (list it) and do not repeat the create blindly.'
        : null;
    },
  },
};
