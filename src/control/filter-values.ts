// The values of the journal's and the findings' filters, checked before the schema sees them: a value that names
// nothing the mock knows is a 400 naming the closest known values, not an empty answer (a misspelt operationId would
// count 0 and an assertion of `times: 0` would pass).
import type { FastifyRequest } from 'fastify';
import { fail } from '../errors.js';
import { portalOperationIds } from '../schemas/operation-ids.js';
import { FaultKind, findingCodes } from '../schemas/control.js';
import { unknownValueMessage } from '../shared/closest.js';

const faultKinds = FaultKind.anyOf.map((kind) => String(kind.const));
const operationIdSet = new Set<string>(portalOperationIds);
const findingCodeSet = new Set<string>(findingCodes);
const faultKindSet = new Set<string>(faultKinds);

type Known = { set: ReadonlySet<string>; list: readonly string[]; what: string; where: string };
const operations: Known = {
  set: operationIdSet,
  list: portalOperationIds,
  what: 'operationId',
  where: "the portal's operations, GET /docs",
};
const findings: Known = { set: findingCodeSet, list: findingCodes, what: 'finding code', where: 'docs/findings.md' };
const faults: Known = { set: faultKindSet, list: faultKinds, what: 'fault kind', where: 'docs/scenarios.md' };

function check(query: Record<string, unknown>, key: string, known: Known): void {
  const value = query[key];
  if (typeof value !== 'string' || known.set.has(value)) return;
  const message = unknownValueMessage(known.what, value, known.list, known.where);
  throw fail.validation(message, [{ field: `query.${key}`, message }]);
}

/** A status filter: an integer from 0 (dropped before any answer) to 599. */
function checkStatus(query: Record<string, unknown>): void {
  const value = query.status;
  if (typeof value !== 'string') return;
  const n = /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (n >= 0 && n <= 599) return;
  const message =
    `status ${JSON.stringify(value.slice(0, 40))} is not a status: an integer from 0 ` +
    '(a connection dropped before any answer) to 599';
  throw fail.validation(message, [{ field: 'query.status', message }]);
}

/** GET /__admin/requests and /requests/count: operationId, finding, fault and status. */
export const journalValueCheck = async (req: FastifyRequest) => {
  const query = req.query as Record<string, unknown>;
  check(query, 'operationId', operations);
  check(query, 'finding', findings);
  check(query, 'fault', faults);
  checkStatus(query);
};

/** GET /__admin/findings: code. */
export const findingValueCheck = async (req: FastifyRequest) => {
  check(req.query as Record<string, unknown>, 'code', findings);
};
