import {
  Type,
  type ObjectOptions,
  type Static,
  type TSchema,
  type TUnsafe,
  type SchemaOptions,
} from '@sinclair/typebox';

/**
 * A `$ref` to a shared record registered with `app.addSchema`, typed as the record itself.
 * Shared records then show as named components in the OpenAPI document.
 * @example response: { 200: ref(TenantInfo) }
 */
export function ref<T extends TSchema & { $id?: string }>(schema: T): TUnsafe<Static<T>> {
  if (!schema.$id) throw new Error('ref() needs a schema with $id');
  return Type.Unsafe<Static<T>>({ $ref: `${schema.$id}#` });
}

/** Marks a field the API description does not show, so client developers know it is our design. */
export const assumed = (text = ''): { description: string } => ({
  description: `${text}${text ? ' ' : ''}(assumed: the API description does not show this field)`,
});

/** The plain field types of records and API shapes (no $id: they stay inline in the document). */
export const Uuid = Type.String({ format: 'uuid' });
export const Stamp = Type.String({ format: 'date-time' });
export const Day = Type.String({ format: 'date' });

export const Nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) =>
  Type.Union([schema, Type.Null()], options);

export const ErrorDetail = Type.Object(
  {
    field: Type.String({
      description: 'where the problem is: body.email, querystring.per-page, header x-service-tenant-id …',
    }),
    message: Type.String({ description: 'what was expected' }),
  },
  { $id: 'ErrorDetail' },
);

export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer({ description: 'the HTTP status, repeated' }),
    error: Type.String({ description: 'the HTTP reason phrase' }),
    code: Type.String({ description: 'a stable identifier of the kind of error, e.g. VALIDATION_FAILED' }),
    message: Type.String({ description: 'what was wrong, for a developer' }),
    details: Type.Optional(Type.Array(ref(ErrorDetail))),
  },
  { $id: 'ErrorBody', ...assumed('One error body for every 4xx/5xx answer.') },
);
export type ErrorBody = Static<typeof ErrorBody>;

/** The error answers of a route, each the one ErrorBody: `response: { 200: Answer, ...errors(400, 401, 404) }`. */
export const errors = <C extends number>(...codes: C[]) =>
  Object.fromEntries(codes.map((code) => [code, ref(ErrorBody)])) as Record<C, TUnsafe<ErrorBody>>;

/** `_meta` of a paged list (field names as given for the workflow ticket list; used by every list). */
export const PageMeta = Type.Object(
  {
    totalCount: Type.Integer({ minimum: 0 }),
    pageCount: Type.Integer({ minimum: 0 }),
    currentPage: Type.Integer({ minimum: 1 }),
    perPage: Type.Integer({ minimum: 1 }),
  },
  { $id: 'PageMeta' },
);
export type PageMeta = Static<typeof PageMeta>;

export const PageLinks = Type.Object(
  {
    self: Type.String(),
    first: Type.String(),
    last: Type.String(),
    prev: Type.Optional(Type.String(assumed())),
    next: Type.Optional(Type.String(assumed())),
  },
  { $id: 'PageLinks' },
);
export type PageLinks = Static<typeof PageLinks>;

/** A paged answer: `data`, `_meta`, `_links`; named with `{ $id }` in options. */
export const Page = <T extends TSchema>(item: T, options?: ObjectOptions) =>
  Type.Object({ data: Type.Array(item), _meta: ref(PageMeta), _links: ref(PageLinks) }, options);

/** The action result of set-main, calendar requests, moderation …; named with `{ $id }` in options. */
export const ActionResult = <T extends TSchema>(
  data: T,
  options?: ObjectOptions,
  message: TSchema = Nullable(Type.String()),
) =>
  Type.Object(
    {
      success: Type.Boolean(),
      message: Type.Optional(message),
      errors: Type.Optional(Nullable(Type.Array(Type.String()))),
      data: Type.Optional(Nullable(data)),
    },
    options,
  );

/** The common query of paged lists; `per-page` and `page` are strings in the API description. */
export const PageQuery = {
  'per-page': Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'items per page' })),
  page: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'page number, from 1' })),
};

export const Rights = [
  'show-content-categories',
  'shop-usage',
  'show-structure-names',
  'wallets-transactions',
  'user-edit',
] as const;
export const Right = Type.Union(
  Rights.map((r) => Type.Literal(r)),
  { $id: 'Right', description: 'an access right named in the API description' },
);
export type Right = Static<typeof Right>;

/** A person as other records show them: the API's lookup item and the `user`/`responsible` of tickets. */
export const PersonBrief = Type.Object(
  {
    id: Type.String({ description: 'user id' }),
    name: Type.String({ description: 'full name' }),
    faceUrl: Type.String({ description: 'absolute address of the avatar' }),
  },
  { $id: 'PersonBrief' },
);
export type PersonBrief = Static<typeof PersonBrief>;

export const commonSchemas = [ErrorDetail, ErrorBody, PageMeta, PageLinks, Right, PersonBrief];
