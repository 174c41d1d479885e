// Files of the user: list, counts, and the upload flow prepare → PUT bytes to a signed address → finish,
// plus signed download addresses. Bytes live in the store as bytes (FileBytes; base64 only in JSON).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { fail } from '../errors.js';
import type { Static } from '@sinclair/typebox';
import {
  uploadLimitBytes,
  type FileCount,
  type FileIndex,
  type FileIndexQuery,
  type PreparedUpload,
  type PrepareUpload,
  type SignedQuery,
} from '../schemas/files.js';
import type { FileRecord, FileType, UserRecord } from '../schemas/records.js';
import type { SandboxStore, Tenant } from '../store/store.js';
import { hashSecret, newUuid } from '../store/ids.js';
import { absolute, type DomainContext } from './context.js';
import { matchesText, pageOf, sortBy } from './lists.js';
import { detectMime, extOf, fileTypeOf } from '../shared/file-types.js';
import { chunksOfContent, contentOf, type FileBytes, sizeOfContent } from '../store/file-bytes.js';

/** Lifetimes of signed addresses (assumed; documented). */
export const signedLifetimes = { uploadSeconds: 15 * 60, downloadSeconds: 3600 };

// ---------------------------------------------------------------- signing

type Signed = Static<typeof SignedQuery>;

const secretOf = (store: SandboxStore) => hashSecret(`upload:${store.meta.seed}`);
const sign = (store: SandboxStore, action: 'upload' | 'download', tenantId: string, fileId: string, expires: number) =>
  createHmac('sha256', secretOf(store)).update(`${action}\n${tenantId}\n${fileId}\n${expires}`).digest('hex');

function signedUrl(
  ctx: DomainContext,
  action: 'upload' | 'download',
  tenantId: string,
  fileId: string,
  seconds: number,
) {
  const expires = Math.floor(ctx.now.getTime() / 1000) + seconds;
  const q = new URLSearchParams({
    tenant: tenantId,
    expires: String(expires),
    signature: sign(ctx.store, action, tenantId, fileId, expires),
  });
  return { url: absolute(ctx, `/files/${fileId}/${action}?${q.toString()}`), expires };
}

/** Checks a signed address (constant-time compare) and returns the file it addresses; 403 for expired or forged. */
function verify(
  ctx: DomainContext,
  action: 'upload' | 'download',
  fileId: string,
  q: Signed,
): { tenant: Tenant; file: FileRecord } {
  const expires = Number(q.expires);
  const expected = Buffer.from(sign(ctx.store, action, q.tenant, fileId, expires), 'hex');
  const given = Buffer.from(/^[0-9a-f]+$/i.test(q.signature) ? q.signature : '', 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw fail.forbidden(`invalid ${action} signature`);
  if (expires * 1000 <= ctx.now.getTime()) throw fail.forbidden(`the ${action} address has expired: ask for a new one`);
  const tenant = ctx.store.tenant(q.tenant);
  const file = tenant?.files.find((f) => f.id === fileId);
  if (!tenant || !file) throw fail.notFound(`file ${fileId} not found`);
  return { tenant, file };
}

// ---------------------------------------------------------------- API

function toIndex(ctx: DomainContext, tenant: Tenant, f: FileRecord): FileIndex {
  return {
    id: f.id,
    name: f.name,
    ext: f.ext,
    file_type: f.fileType as FileType,
    mime_type: f.mimeType,
    size: f.size,
    is_public: f.isPublic,
    status: f.status,
    created_at: f.createdAt,
    uploaded_at: f.uploadedAt,
    url: signedUrl(ctx, 'download', tenant.tenant.id, f.id, signedLifetimes.downloadSeconds).url,
  };
}

const uploadedOf = (tenant: Tenant, user: UserRecord, search?: string) =>
  tenant.files.filter((f) => f.userId === user.id && f.status === 'UPLOADED' && matchesText(search, [f.name]));

export function fileIndex(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  q: Static<typeof FileIndexQuery>,
  url: string,
) {
  const items = uploadedOf(tenant, user, q.search).filter((f) => !q.file_type || f.fileType === q.file_type);
  const sorted = sortBy(items, q.sort || '-created_at', {
    name: (f) => f.name,
    ext: (f) => f.ext,
    file_type: (f) => f.fileType,
    mime_type: (f) => f.mimeType,
    created_at: (f) => f.createdAt,
  });
  return pageOf(sorted, q, url, (f) => toIndex(ctx, tenant, f));
}

export function fileCount(
  _ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  q: { search?: string | undefined },
): FileCount {
  const count: FileCount = { image: 0, video: 0, document: 0, archive: 0, other: 0, encrypted: 0 };
  for (const f of uploadedOf(tenant, user, q.search)) count[f.fileType as keyof FileCount]++;
  return count;
}

export function prepareUpload(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  body: PrepareUpload,
): PreparedUpload {
  const name = body.name.trim().replace(/[\\/]/g, '_');
  if (!name) throw fail.validation('name must not be blank', [{ field: 'body.name', message: 'must not be blank' }]);
  let file = body.id ? tenant.files.find((f) => f.id === body.id) : undefined;
  if (file && file.userId !== user.id) throw fail.forbidden(`file ${body.id} belongs to another user`);
  if (file && file.status === 'UPLOADED') throw fail.conflict(`file ${file.id} is already uploaded`);
  const mimeType = detectMime(name, body.mimeType ?? file?.mimeType);
  if (file) {
    file = ctx.store.update(tenant, 'files', file, {
      name,
      ext: extOf(name),
      mimeType,
      fileType: fileTypeOf(name, mimeType),
      isPublic: body.is_public,
      size: body.size ?? file.size,
    });
  } else {
    file = {
      id: body.id ?? newUuid(ctx.store, 'file'),
      userId: user.id,
      name,
      ext: extOf(name),
      mimeType,
      fileType: fileTypeOf(name, mimeType),
      size: body.size ?? 0,
      isPublic: body.is_public,
      status: 'PREPARED',
      createdAt: ctx.now.toISOString(),
      uploadedAt: null,
      contentBase64: null,
    };
    ctx.store.insert(tenant, 'files', file);
  }
  const { url, expires } = signedUrl(ctx, 'upload', tenant.tenant.id, file.id, signedLifetimes.uploadSeconds);
  return {
    id: file.id,
    uploadUrl: url,
    method: 'PUT',
    expiresAt: new Date(expires * 1000).toISOString(),
    maxSize: uploadLimitBytes,
    status: file.status,
  };
}

/** Bytes of the uploaded files a sandbox holds, every tenant's. */
export function uploadedBytes(ctx: Pick<DomainContext, 'store'>, except?: FileRecord): number {
  let bytes = 0;
  for (const tenant of ctx.store.tenants())
    for (const file of tenant.files)
      if (file !== except && file.contentBase64 !== null) bytes += sizeOfContent(file.contentBase64);
  return bytes;
}

/**
 * PUT of the raw bytes to a signed upload address; a repeated PUT before finish-upload replaces them. The sandbox
 * keeps at most `limitBytes` of uploaded bytes (--sandbox-upload-mb): they live in memory, 10 MiB an upload, as the
 * pieces the body arrived in (no copy, no base64 on the way in).
 */
export function uploadBytes(
  ctx: DomainContext,
  fileId: string,
  q: Signed,
  bytes: FileBytes,
  contentType: string | undefined,
  limitBytes: number,
) {
  const { tenant, file } = verify(ctx, 'upload', fileId, q);
  if (file.status === 'UPLOADED') throw fail.conflict(`file ${fileId} is already uploaded`);
  const held = uploadedBytes(ctx, file);
  if (held + bytes.size > limitBytes) {
    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    throw fail.payloadTooLarge(
      `this sandbox holds ${mb(held)} MiB of uploaded files and may hold ${mb(limitBytes)} MiB ` +
        '(--sandbox-upload-mb): reset or delete the sandbox, or start the mock with a larger --sandbox-upload-mb',
    );
  }
  const declared = contentType?.split(';')[0]?.trim();
  ctx.store.update(tenant, 'files', file, {
    contentBase64: contentOf(bytes),
    size: bytes.size,
    ...(file.mimeType === 'application/octet-stream' && declared ? { mimeType: detectMime(file.name, declared) } : {}),
  });
  return { success: true, id: file.id, size: bytes.size };
}

export function finishUpload(ctx: DomainContext, tenant: Tenant, user: UserRecord, id: string): FileIndex {
  const file = tenant.files.find((f) => f.id === id && f.userId === user.id);
  if (!file) throw fail.notFound(`file ${id} not found`);
  if (file.status === 'UPLOADED') return toIndex(ctx, tenant, file);
  if (file.contentBase64 === null)
    throw fail.conflict(`no bytes arrived for file ${id} yet: PUT them to the uploadUrl first`);
  const mimeType = detectMime(file.name, file.mimeType);
  const uploaded = ctx.store.update(tenant, 'files', file, {
    status: 'UPLOADED',
    uploadedAt: ctx.now.toISOString(),
    size: sizeOfContent(file.contentBase64),
    mimeType,
    fileType: fileTypeOf(file.name, mimeType),
  });
  return toIndex(ctx, tenant, uploaded);
}

/** The bytes behind a signed download address (uploaded files only). */
export function downloadFile(
  ctx: DomainContext,
  fileId: string,
  q: Signed,
): { chunks: readonly Buffer[]; size: number; mimeType: string; name: string } {
  const { file } = verify(ctx, 'download', fileId, q);
  if (file.status !== 'UPLOADED' || file.contentBase64 === null) throw fail.notFound(`file ${fileId} is not uploaded`);
  const { contentBase64 } = file;
  return {
    chunks: chunksOfContent(contentBase64),
    size: sizeOfContent(contentBase64),
    mimeType: file.mimeType,
    name: file.name,
  };
}
