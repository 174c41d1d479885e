import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { fail } from '../errors.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, Page, ref, Uuid } from '../schemas/common.js';
import {
  FileCount,
  FileIndex,
  FileIndexQuery,
  PreparedUpload,
  PrepareUpload,
  SignedQuery,
  UploadResult,
  uploadLimitBytes,
} from '../schemas/files.js';
import { domainContext } from '../http/context.js';
import { readBytes, uploadedBody } from '../http/upload-body.js';
import { callerArgs, listUrl } from './handler.js';
import { downloadFile, fileCount, fileIndex, finishUpload, prepareUpload, uploadBytes } from '../domain/files.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [{ name: 'file', description: 'Files of the user, upload and download' }];

const tags = ['file'];
const fileId = Type.Object({ id: Uuid });

/** The signed upload address: raw bytes of any content type. Its own plugin, so the catch-all parser stays here. */
const uploadRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.removeAllContentTypeParsers();
  // kept as the pieces it arrives in (src/http/upload-body.ts), never joined
  app.addContentTypeParser('*', { bodyLimit: uploadLimitBytes }, readBytes(uploadLimitBytes));
  // before a byte is read: a body the memory budget cannot take is refused by its Content-Length (the rest is read
  // and thrown away, src/http/refused-body.ts), and one it takes is counted while it arrives
  app.addHook('preParsing', async (req, reply, payload) => {
    const declared = Number(req.headers['content-length']);
    const bytes =
      Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, uploadLimitBytes) : uploadLimitBytes;
    const full = app.memory.pastLimit(bytes);
    if (full) throw fail.payloadTooLarge(`the upload is not kept: ${full}`);
    reply.raw.once('close', app.memory.reserve(bytes));
    return payload;
  });
  app.put(
    '/files/:id/upload',
    {
      schema: {
        operationId: 'fileUpload',
        tags,
        summary: 'Upload the bytes of a prepared file (the signed uploadUrl; not part of the portal API)',
        description:
          `Send the raw bytes as the body, any content type, at most ${uploadLimitBytes} bytes (413 ` +
          'beyond; 413 also when the sandbox would hold more uploaded bytes than --sandbox-upload-mb, or the server ' +
          'more than --max-memory-mb or --max-heap-percent). No session ' +
          'needed: the signature authorizes. Expired or forged signature: 403.',
        params: fileId,
        querystring: SignedQuery,
        response: { 200: ref(UploadResult), ...errors(400, 403, 404, 409, 413, 500) },
      },
      bodyLimit: uploadLimitBytes,
      config: { auth: 'none' },
    },
    async (req) => {
      const bytes = uploadedBody(req.body);
      // this body is counted already (reserved while it arrived)
      const full = app.memory.pastLimit();
      if (full) throw fail.payloadTooLarge(`the upload is not kept: ${full}`);
      const limit = app.config.sandboxUploadMb * 1024 * 1024;
      const answer = uploadBytes(
        domainContext(req),
        req.params.id,
        req.query,
        bytes,
        req.headers['content-type'],
        limit,
      );
      app.memory.kept(bytes.size);
      return answer;
    },
  );
};

export const fileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/file/index',
    {
      schema: {
        operationId: 'fileIndex',
        tags,
        summary: 'Uploaded files of the current user',
        description: 'per-page default 20 (clamped to 100); sort default -created_at.',
        querystring: FileIndexQuery,
        response: { 200: Page(ref(FileIndex)), ...errors(400, 401, 403, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => fileIndex(...callerArgs(req), req.query, listUrl(req)),
  );

  app.get(
    '/file/count',
    {
      schema: {
        operationId: 'fileCount',
        tags,
        summary: 'Uploaded files of the current user per type',
        description:
          "How many of the caller's uploaded files there are of each type (image, " +
          'video, document, archive, other, encrypted), matching `search` when given.',
        querystring: Type.Object({ search: Type.Optional(Type.String({ maxLength: 200 })) }),
        response: { 200: ref(FileCount), ...errors(400, 401, 403, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => fileCount(...callerArgs(req), req.query),
  );

  app.post(
    '/file/prepare-upload',
    {
      schema: {
        operationId: 'filePrepareUpload',
        tags,
        summary: 'Create a file record and a signed upload address',
        description:
          'Repeating with the same id gives the same record and a fresh ' +
          'address. PUT the bytes to uploadUrl, then call finish-upload.',
        body: ref(PrepareUpload),
        response: { 200: ref(PreparedUpload), ...errors(400, 401, 403, 409, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => prepareUpload(...callerArgs(req), req.body),
  );

  app.post(
    '/file/finish-upload',
    {
      schema: {
        operationId: 'fileFinishUpload',
        tags,
        summary: 'Mark a file UPLOADED once its bytes arrived',
        description:
          'Call after PUTting the bytes to the uploadUrl of /file/prepare-upload: the ' +
          'file becomes UPLOADED and shows in /file/index. No bytes yet is a 409.',
        querystring: fileId,
        response: { 200: ref(FileIndex), ...errors(400, 401, 403, 404, 409, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => finishUpload(...callerArgs(req), req.query.id),
  );

  app.get(
    '/files/:id/download',
    {
      schema: {
        operationId: 'fileDownload',
        tags,
        summary: 'The bytes of an uploaded file (the signed url of fileIndex; not part of the portal API)',
        description: 'No session needed: the signature authorizes (valid one hour). Expired or forged signature: 403.',
        params: fileId,
        querystring: SignedQuery,
        response: {
          200: {
            description: 'the file bytes with their content type',
            content: { '*/*': { schema: Type.Unsafe<Buffer | Readable>({ type: 'string', format: 'binary' }) } },
          },
          ...errors(400, 403, 404, 500),
        },
      },
      config: { auth: 'none' },
    },
    async (req, reply) => {
      const file = downloadFile(domainContext(req), req.params.id, req.query);
      reply
        .type(file.mimeType)
        .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(file.name)}`);
      // sent as the pieces it is kept in: joining them would copy the whole file first
      if (file.chunks.length === 1) return reply.send(file.chunks[0]!);
      return reply.header('content-length', file.size).send(Readable.from(file.chunks, { objectMode: false }));
    },
  );

  await app.register(uploadRoute);
};
