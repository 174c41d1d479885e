// Writes forwarded exchanges as stubs of a scenario file (recorded-<name>.json), loadable with --scenarios DIR.
import { existsSync, readFileSync } from 'node:fs';
import { makeDirs } from '../shared/make-dirs.js';
import { join } from 'node:path';
import type { Stub } from '../schemas/scenario.js';
import { recordedHeaderAllowList, redactRecorded, redactText } from './redact.js';
import type { UpstreamAnswer } from './upstream.js';
import { writeAtomic } from '../shared/write-atomic.js';
import { CheckError } from '../schemas/check.js';

/** A forwarded request and the upstream's answer to it. */
type Exchange = Extract<UpstreamAnswer, { ok: true }> & { operationId: string | null; method: string; path: string };

/** A default name from the time: recorded-20260302-090000. */
function recordingName(): string {
  return `recorded-${new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}`;
}

/** One stub from one exchange: matched by operationId when the mock implements it, else by method and path. */
function stubOf(x: Exchange): Stub {
  const headers: Record<string, string> = {};
  for (const [k, v] of x.headers) if (recordedHeaderAllowList.has(k)) headers[k] = v;
  const matcher = x.operationId ? { operationId: x.operationId } : { method: x.method.toUpperCase(), path: x.path };
  const stub: Stub = { ...matcher, status: x.status };
  if (Object.keys(headers).length > 0) stub.headers = headers;
  if (x.body.length === 0) return stub;
  const text = x.body.toString('utf8');
  if (/json/i.test(x.contentType)) {
    try {
      stub.body = redactRecorded(JSON.parse(text));
      return stub;
    } catch {
      /* not JSON after all: kept as text below */
    }
  }
  // Only text survives a scenario file; a binary answer is recorded without its body.
  if (/^text\/|xml|javascript|json|x-www-form-urlencoded/i.test(x.contentType) && !text.includes('\uFFFD'))
    stub.body = redactText(text);
  return stub;
}

/** Stubs one recording keeps (--record-limit's default). */
export const defaultRecordLimit = 1000;

const stubKey = (stub: Stub) => stub.operationId ?? `${stub.method} ${stub.path}`;

/**
 * Records into DIR/NAME.json; one stub per operation or method+path (the latest answer wins), file rewritten each
 * time. At most `limit` stubs (--record-limit): paths are the client's, so past it the stub answered longest ago goes.
 */
export class Recorder {
  readonly dir: string;
  readonly name: string;
  private readonly stubs = new Map<string, Stub>();
  private readonly limit: number;
  /** `resume`: go on with the stubs the file already holds (a recording a restart brings back under --data). */
  constructor(dir: string, name: string = recordingName(), options: { resume?: boolean; limit?: number } = {}) {
    this.dir = dir;
    this.name = name;
    this.limit = options.limit ?? defaultRecordLimit;
    makeDirs(dir);
    if (options.resume && existsSync(this.file)) this.readStubs();
    this.write();
  }
  private readStubs(): void {
    let stubs: unknown;
    try {
      stubs = (JSON.parse(readFileSync(this.file, 'utf8')) as { stubs?: unknown }).stubs;
    } catch {
      /* reported below */
    }
    if (!Array.isArray(stubs)) {
      throw new CheckError(this.file, '/stubs', 'the recorded stubs; move the file away to record afresh');
    }
    for (const stub of stubs as Stub[]) this.stubs.set(stubKey(stub), stub);
  }
  get file(): string {
    return join(this.dir, `${this.name}.json`);
  }
  get size(): number {
    return this.stubs.size;
  }
  add(x: Exchange): void {
    const stub = stubOf(x);
    const key = stubKey(stub);
    this.stubs.delete(key); // keep file order = order of the latest answers
    this.stubs.set(key, stub);
    for (const oldest of this.stubs.keys()) {
      if (this.stubs.size <= this.limit) break;
      this.stubs.delete(oldest);
    }
    this.write();
  }
  private write(): void {
    const scenario = {
      name: this.name,
      description: `Answers recorded from the upstream by portal-mock (${this.stubs.size} stubs); secrets and personal data replaced`,
      stubs: [...this.stubs.values()],
    };
    writeAtomic(this.file, `${JSON.stringify(scenario, null, 2)}\n`);
  }
}
