// A file record's content as the schemas see it: the base64 text it is in JSON (snapshots, captures, the --data log,
// the records API, the typed client). In memory the store keeps an upload's bytes themselves instead (FileBytes,
// src/store/file-bytes.ts), whose toJSON writes that same text; its functions read either form.
import { Kind, Type } from '@sinclair/typebox';

/**
 * A file's content: in JSON (the API documents, ajv) a base64 string, as before; checked by TypeBox (imports, the
 * records API) as canonical base64 or bytes the store already holds (the check is registered by the store).
 */
export const FileContent = Type.Unsafe<string>({ [Kind]: 'FileBytes', type: 'string' });
