import type { IncomingMessage } from 'node:http';
import type { FastifyServerOptions } from 'fastify';
import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyCompressOptions } from '@fastify/compress';
import type { Options } from '../config.js';
import { clientErrorHandler, renderError } from '../errors.js';
import { makeUrlRewriter, type PrefixInfo } from './context.js';
import { serverLimitOptions, type ServerLimits } from './limits.js';
import { ajvOptions, lazyValidatorBuilder } from './validators.js';

export type LoggerOption =
  | boolean
  | {
      level: string;
      transport?: { target: string; options: Record<string, unknown> };
      /** where the JSON lines go (tests read them) */
      stream?: { write(line: string): void };
    };

export type ServerOptionsInput = {
  /** a pino logger config, or false; defaults to JSON logs at options.logLevel */
  logger?: LoggerOption;
  tls?: { key: string; cert: string } | null;
  serverLimits?: Partial<ServerLimits>;
  /** filled by the URL rewriter with the prefixes it took off each request (read by the request state) */
  prefixes: WeakMap<IncomingMessage, PrefixInfo>;
};

/** Fastify's own options: the Node server, the router, the validator. */
export function fastifyOptions(
  options: Options,
  { logger, tls, serverLimits, prefixes }: ServerOptionsInput,
): FastifyServerOptions & { https?: { key: string; cert: string } } {
  return {
    ...(tls ? { https: tls } : {}),
    logger: logger ?? (options.logLevel === 'silent' ? false : { level: options.logLevel }),
    trustProxy: true,
    bodyLimit: options.bodyLimit,
    ...serverLimitOptions(serverLimits),
    clientErrorHandler,
    frameworkErrors: renderError, // bad URL encoding and the like: the one error body too
    rewriteUrl: makeUrlRewriter(prefixes),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    schemaController: { compilersFactory: { buildValidator: lazyValidatorBuilder() } },
    ajv: { customOptions: ajvOptions },
  };
}

/**
 * Any origin, with credentials, as a development server allows (web previews of React Native, Flutter or Ionic
 * apps); every OPTIONS request is a preflight answered 204.
 */
export const corsOptions: FastifyCorsOptions = {
  origin: true,
  credentials: true,
  methods: 'GET,HEAD,PUT,PATCH,POST,DELETE',
  maxAge: 600,
  strictPreflight: false,
};

/**
 * gzip and deflate are what mobile HTTP stacks accept on their own; level 1 as nginx, for less CPU
 * (docs/performance.md, also why not brotli).
 */
export const compressOptions: FastifyCompressOptions = {
  global: true,
  threshold: 1024,
  encodings: ['gzip', 'deflate'],
  zlibOptions: { level: 1 },
  // in one call up to 64 KiB (the dashboard is about 21 KB): its default on 2 cores (8 KiB) sends larger answers
  // through a zlib stream, which costs more than compressing them in one go (docs/performance.md)
  syncThreshold: 65536,
};
