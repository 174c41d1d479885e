// Files of the user: API shapes. The record is FileRecord in records.ts (collection `files`).
import { Type, type Static, type TInteger } from '@sinclair/typebox';
import { assumed, Nullable, PageQuery, Stamp, Uuid } from './common.js';
import { fileTypes, type FileType } from './records.js';

/** Upload size limit of PUT /files/<id>/upload (the API description gives none). */
export const uploadLimitBytes = 10 * 1024 * 1024;

/** An enum (not a union of literals) so a wrong value gets one readable validation message. */
export const FileTypeName = Type.Unsafe<FileType>({ type: 'string', enum: [...fileTypes] });

export const FileIndex = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    ext: Type.String({ description: 'extension without the dot, lower case' }),
    file_type: FileTypeName,
    mime_type: Type.String(),
    size: Type.Integer({ minimum: 0, description: 'bytes' }),
    is_public: Type.Boolean(),
    status: Type.String({ description: 'UPLOADED (the list shows only uploaded files)' }),
    created_at: Stamp,
    uploaded_at: Nullable(Stamp),
    url: Type.String({ description: 'signed download address, valid for one hour' }),
  },
  { $id: 'FileIndex', ...assumed('A file of the user.') },
);
export type FileIndex = Static<typeof FileIndex>;

export const FileCount = Type.Object(
  Object.fromEntries(fileTypes.map((t) => [t, Type.Integer({ minimum: 0 })])) as Record<FileType, TInteger>,
  { $id: 'FileCount', description: 'Uploaded files of the current user per type.' },
);
export type FileCount = Static<typeof FileCount>;

export const FileIndexQuery = Type.Object({
  file_type: Type.Optional(FileTypeName),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'words searched in the name' })),
  sort: Type.Optional(
    Type.String({
      maxLength: 40,
      description: 'name, ext, file_type, mime_type, created_at with an optional + or - prefix; default -created_at',
    }),
  ),
  ...PageQuery,
});

export const PrepareUpload = Type.Object(
  {
    id: Type.Optional(
      Type.String({ format: 'uuid', description: 'repeat with the same id: the same record, a fresh address' }),
    ),
    name: Type.String({ minLength: 1, maxLength: 255, description: 'file name with its extension' }),
    size: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: uploadLimitBytes,
        ...assumed('declared size in bytes; the real size is what arrives'),
      }),
    ),
    mimeType: Type.Optional(Type.String({ maxLength: 200, ...assumed('used when the extension tells nothing') })),
    is_public: Type.Boolean(),
  },
  { $id: 'PrepareUpload', ...assumed('Body of prepare-upload; only is_public is named by the API description.') },
);
export type PrepareUpload = Static<typeof PrepareUpload>;

export const PreparedUpload = Type.Object(
  {
    id: Uuid,
    uploadUrl: Type.String({ description: 'PUT the raw bytes here (any content type), then call finish-upload' }),
    method: Type.Literal('PUT'),
    expiresAt: Type.String({ format: 'date-time', description: 'the address works until then (15 minutes)' }),
    maxSize: Type.Integer({ description: 'bytes accepted by the upload address' }),
    status: Type.String({ description: 'PREPARED or UPLOADED' }),
  },
  { $id: 'PreparedUpload', ...assumed('The signed upload address of a prepared file.') },
);
export type PreparedUpload = Static<typeof PreparedUpload>;

export const SignedQuery = Type.Object({
  tenant: Uuid,
  expires: Type.String({ pattern: '^[0-9]{1,12}$', description: 'unix seconds' }),
  signature: Type.String({ maxLength: 128, description: 'HMAC-SHA256, hex' }),
});

export const UploadResult = Type.Object(
  {
    success: Type.Boolean(),
    id: Uuid,
    size: Type.Integer({ minimum: 0 }),
  },
  { $id: 'UploadResult', ...assumed('Answer of the upload address.') },
);

export const fileSchemas = [FileIndex, FileCount, PrepareUpload, PreparedUpload, UploadResult];
