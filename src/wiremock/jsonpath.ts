// A small, bounded JSONPath: the subset WireMock's documentation uses (Jayway's syntax). `$`, `.name`, `['name']`,
// `[n]` (negative from the end), `[n,m]`, `[*]`, `.*`, `..name` / `..*` / `..[n]`, and filters `[?(@.a.b OP value)]`
// with ==, !=, <, <=, >, >=, an existence test `[?(@.a)]`, and && / || between them. Anything else is refused
// when the mapping is given. The work of one evaluation is bounded (nodes visited): past it, no result.

type Literal = string | number | boolean | null;
type Comparison = { path: Step[]; op?: '==' | '!=' | '<' | '<=' | '>' | '>='; value?: Literal };
type Filter = { any: Array<{ all: Comparison[] }> };
export type Step =
  | { kind: 'name'; name: string; deep: boolean }
  | { kind: 'wildcard'; deep: boolean }
  | { kind: 'index'; indexes: number[]; deep: boolean }
  | { kind: 'filter'; filter: Filter; deep: boolean };
export type JsonPath = { steps: Step[]; definite: boolean };

export const maxJsonPathChars = 1000;
/** Most nodes one evaluation visits (a deep scan visits every node below). */
export const maxJsonPathWork = 200_000;

const cache = new Map<string, JsonPath | { problem: string }>();

/** A parsed expression, or what is wrong with it. Parsed expressions are kept by text (a bounded cache). */
export function parseJsonPath(text: string): JsonPath | { problem: string } {
  const kept = cache.get(text);
  if (kept) return kept;
  let result: JsonPath | { problem: string };
  try {
    if (text.length > maxJsonPathChars) throw new Error(`at most ${maxJsonPathChars} characters`);
    const p = new Parser(text);
    const steps = p.path(true);
    if (p.i !== text.length) throw new Error(`unexpected "${text.slice(p.i, p.i + 10)}" at ${p.i}`);
    const definite = steps.every(
      (s) => !s.deep && (s.kind === 'name' || (s.kind === 'index' && s.indexes.length === 1)),
    );
    result = { steps, definite };
  } catch (err) {
    result = { problem: (err as Error).message };
  }
  if (cache.size >= 1000) cache.delete(cache.keys().next().value!);
  cache.set(text, result);
  return result;
}

class Parser {
  i = 0;
  readonly s: string;
  constructor(s: string) {
    this.s = s;
  }
  private fail(what: string): never {
    throw new Error(`expected ${what} at ${this.i}`);
  }
  private eat(token: string): boolean {
    if (!this.s.startsWith(token, this.i)) return false;
    this.i += token.length;
    return true;
  }
  private spaces() {
    while (this.s[this.i] === ' ') this.i++;
  }
  /** A path from `$` (root) or `@` (filter's current node), up to a character that cannot continue it. */
  path(root: boolean): Step[] {
    if (!this.eat(root ? '$' : '@')) this.fail(root ? '$' : '@');
    const steps: Step[] = [];
    for (;;) {
      const deep = this.eat('..');
      if (deep || this.eat('.')) {
        if (this.eat('*')) steps.push({ kind: 'wildcard', deep });
        else if (deep && this.s[this.i] === '[') steps.push(this.bracket(true));
        else steps.push({ kind: 'name', name: this.name(), deep });
      } else if (this.s[this.i] === '[') steps.push(this.bracket(false));
      else return steps;
    }
  }
  private name(): string {
    const m = /^[A-Za-z_$][\w$-]*/.exec(this.s.slice(this.i));
    if (!m) this.fail('a name');
    this.i += m[0].length;
    return m[0];
  }
  private bracket(deep: boolean): Step {
    this.eat('[');
    this.spaces();
    let step: Step;
    if (this.eat('*')) step = { kind: 'wildcard', deep };
    else if (this.eat('?(')) {
      step = { kind: 'filter', filter: this.filter(), deep };
      this.spaces();
      if (!this.eat(')')) this.fail(')');
    } else if (this.s[this.i] === "'" || this.s[this.i] === '"') step = { kind: 'name', name: this.quoted(), deep };
    else {
      const indexes = [this.int()];
      this.spaces();
      while (this.eat(',')) {
        this.spaces();
        indexes.push(this.int());
        this.spaces();
      }
      step = { kind: 'index', indexes, deep };
    }
    this.spaces();
    if (!this.eat(']')) this.fail(']');
    return step;
  }
  private int(): number {
    const m = /^-?\d{1,9}/.exec(this.s.slice(this.i));
    if (!m) this.fail("an index, *, 'name' or ?(filter)");
    this.i += m[0].length;
    return Number(m[0]);
  }
  private quoted(): string {
    const q = this.s[this.i++]!;
    const end = this.s.indexOf(q, this.i);
    if (end < 0) this.fail(`a closing ${q}`);
    const text = this.s.slice(this.i, end);
    this.i = end + 1;
    return text;
  }
  private filter(): Filter {
    const any: Filter['any'] = [];
    for (;;) {
      const all: Comparison[] = [];
      for (;;) {
        this.spaces();
        all.push(this.comparison());
        this.spaces();
        if (!this.eat('&&')) break;
      }
      any.push({ all });
      if (!this.eat('||')) return { any };
    }
  }
  private comparison(): Comparison {
    const path = this.path(false);
    if (path.some((s) => s.kind === 'filter')) this.fail('no nested filter');
    this.spaces();
    const op = /^(==|!=|<=|>=|<|>)/.exec(this.s.slice(this.i))?.[1] as Comparison['op'];
    if (!op) return { path };
    this.i += op.length;
    this.spaces();
    return { path, op, value: this.literal() };
  }
  private literal(): Literal {
    const c = this.s[this.i];
    if (c === "'" || c === '"') return this.quoted();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const)
      if (this.eat(word)) return value;
    const m = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.s.slice(this.i));
    if (!m) this.fail('a string, number, true, false or null');
    this.i += m[0].length;
    return Number(m[0]);
  }
}

type Work = { left: number };

function children(node: unknown): unknown[] {
  if (Array.isArray(node)) return node;
  if (node !== null && typeof node === 'object') return Object.values(node);
  return [];
}

/** The node and every node below it, depth first (an explicit stack: any nesting is safe). */
function descendants(node: unknown, work: Work): unknown[] {
  const out: unknown[] = [];
  const stack = [node];
  while (stack.length > 0) {
    if (--work.left < 0) throw new Error('work');
    const at = stack.pop();
    out.push(at);
    const kids = children(at);
    for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]);
  }
  return out;
}

function applyStep(node: unknown, step: Step, work: Work): unknown[] {
  if (--work.left < 0) throw new Error('work');
  switch (step.kind) {
    case 'name':
      return node !== null && typeof node === 'object' && !Array.isArray(node) && Object.hasOwn(node, step.name)
        ? [(node as Record<string, unknown>)[step.name]]
        : [];
    case 'wildcard':
      return children(node);
    case 'index':
      if (!Array.isArray(node)) return [];
      return step.indexes
        .map((n) => (n < 0 ? node.length + n : n))
        .filter((n) => n >= 0 && n < node.length)
        .map((n) => node[n]);
    case 'filter':
      // Jayway filters an array's items, and an object as itself
      return (Array.isArray(node) ? node : node !== null && typeof node === 'object' ? [node] : []).filter((item) =>
        step.filter.any.some(({ all }) => all.every((c) => holds(c, item, work))),
      );
  }
}

function holds(c: Comparison, item: unknown, work: Work): boolean {
  const found = run(c.path, item, work);
  if (c.op === undefined) return found.length > 0;
  if (found.length === 0) return false;
  const a = found[0];
  const b = c.value;
  switch (c.op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    default: {
      if (!(typeof a === 'number' && typeof b === 'number') && !(typeof a === 'string' && typeof b === 'string'))
        return false;
      if (c.op === '<') return a < b;
      if (c.op === '<=') return a <= b;
      if (c.op === '>') return a > b;
      return a >= b;
    }
  }
}

function run(steps: Step[], root: unknown, work: Work): unknown[] {
  let nodes = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const node of nodes) {
      const from = step.deep ? descendants(node, work) : [node];
      for (const at of from) for (const found of applyStep(at, step, work)) next.push(found);
    }
    nodes = next;
  }
  return nodes;
}

/** What an expression selects in a JSON value: the nodes, or null when the work bound is reached. */
export function evaluateJsonPath(path: JsonPath, value: unknown, maxWork = maxJsonPathWork): unknown[] | null {
  try {
    return run(path.steps, value, { left: maxWork });
  } catch (err) {
    if ((err as Error).message === 'work') return null;
    throw err;
  }
}
