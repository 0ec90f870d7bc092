// Generates malformed requests for every operation of an OpenAPI document with fast-check.
// Every generated request is invalid *by construction* (unparseable body, wrong content type,
// or a schema violation at a known path), so a correct gateway answers 4xx and changes nothing.
import fc from 'fast-check';

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}

interface OpenApiOperation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

export interface Operation {
  id: string;
  method: string;
  template: string;
  pathParams: Parameter[];
  query: Parameter[];
  body: JsonSchema | undefined;
}

export interface FuzzRequest {
  /** Which mutation produced it (for failure messages and coverage counts). */
  kind: string;
  method: string;
  path: string;
  contentType?: string;
  body?: string;
}

const INSTANCE_PARAMS = new Set(['instanceId', 'instanceToken']);

/** Every operation of the document, with the inputs it declares. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      out.push({
        id: op.operationId ?? `${method} ${template}`,
        method: method.toUpperCase(),
        template,
        pathParams: params.filter((p) => p.in === 'path' && !INSTANCE_PARAMS.has(p.name)),
        query: params.filter((p) => p.in === 'query'),
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Valid-looking values, so violations deeper in a body are reached by the validator.

type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

function jsonType(v: unknown): JsonType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v as JsonType;
}

function accepts(schema: JsonSchema, t: JsonType): boolean {
  if (schema.anyOf) return schema.anyOf.some((s) => accepts(s, t));
  if (schema.type === undefined) return true;
  return schema.type === t || (schema.type === 'number' && t === 'integer');
}

/** Plausible strings: phones, groups, URLs and data URIs beside random text. */
const plausibleString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  fc.constantFrom('5511999990000', '+55 (11) 99999-0000', '120363012345678901-group', '123456789@lid', 'https://hooks.example.com/x'),
  fc.constantFrom('data:image/png;base64,AAAA', 'https://chat.whatsapp.com/ABCDEFGHIJKL', '3EB0AAAAAAAAAAAAAAAAAA', '-23.5', '181'),
);

export function valueFor(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => valueFor(s, depth)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? 64, 64);
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Infinity));
      return plausibleString.filter((s) => s.length >= min && s.length <= max);
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? valueFor(schema.items, depth + 1) : fc.jsonValue({ maxDepth: 1 }), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
      });
    case 'object': {
      const props = schema.properties ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, s] of Object.entries(props)) model[k] = valueFor(s, depth + 1);
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

// ---------------------------------------------------------------------------------------------
// Violations: a path into the body and a value (or removal) that the schema must refuse.

type Path = (string | number)[];
export interface Violation {
  path: Path;
  /** `undefined` removes the property. */
  value: fc.Arbitrary<unknown>;
  what: string;
}

const REMOVE = Symbol('remove');

/** Any JSON value, including deep junk, whose type the schema does not accept. */
function wrongType(schema: JsonSchema): fc.Arbitrary<unknown> {
  return fc
    .oneof(
      fc.string({ maxLength: 20 }),
      fc.boolean(),
      fc.constant(null),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 4 }),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 4 }),
    )
    .filter((v) => !accepts(schema, jsonType(v)));
}

function constsOf(schema: JsonSchema): unknown[] | undefined {
  if (schema.enum) return schema.enum;
  if (schema.anyOf?.every((s) => s.const !== undefined)) return schema.anyOf.map((s) => s.const);
  return undefined;
}

export function violationsOf(schema: JsonSchema, path: Path = []): Violation[] {
  const out: Violation[] = [];
  const at = path.length === 0 ? 'body' : path.join('.');
  if (path.length > 0) out.push({ path, value: wrongType(schema), what: `${at}: wrong type` });
  const consts = constsOf(schema);
  if (consts) out.push({ path, value: fc.string({ maxLength: 12 }).filter((s) => !consts.includes(s)), what: `${at}: not allowed` });
  if (schema.type === 'string') {
    if (schema.maxLength !== undefined && schema.maxLength < 200_000) {
      const max = schema.maxLength;
      out.push({ path, value: fc.integer({ min: max + 1, max: max + 5_000 }).map((n) => 'x'.repeat(n)), what: `${at}: too long` });
    }
    if ((schema.minLength ?? 0) > 0) out.push({ path, value: fc.constant(''), what: `${at}: empty` });
    if (schema.pattern) {
      const re = new RegExp(schema.pattern);
      out.push({ path, value: fc.string({ maxLength: 50 }).filter((s) => !re.test(s)), what: `${at}: pattern` });
    }
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    if (schema.minimum !== undefined) out.push({ path, value: fc.integer({ min: -1e9, max: schema.minimum - 1 }), what: `${at}: below minimum` });
    // A maximum near the safe-integer limit leaves no integer above it to try.
    if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER - 1e6) {
      out.push({ path, value: fc.integer({ min: schema.maximum + 1, max: Math.max(1e12, schema.maximum + 1e6) }), what: `${at}: above maximum` });
    }
    if (schema.type === 'integer') out.push({ path, value: fc.double({ min: -100, max: 100, noInteger: true }), what: `${at}: not an integer` });
  }
  if (schema.type === 'array') {
    if ((schema.minItems ?? 0) > 0) out.push({ path, value: fc.constant([]), what: `${at}: too few items` });
    if (schema.maxItems !== undefined && schema.maxItems <= 2_000 && schema.items) {
      const items = valueFor(schema.items);
      out.push({ path, value: fc.array(items, { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 3 }), what: `${at}: too many items` });
    }
    if (schema.items) out.push(...violationsOf(schema.items, [...path, 0]));
  }
  if (schema.type === 'object') {
    const required = new Set(schema.required ?? []);
    for (const [k, s] of Object.entries(schema.properties ?? {})) {
      if (required.has(k)) out.push({ path: [...path, k], value: fc.constant(REMOVE), what: `${[...path, k].join('.')}: missing` });
      out.push(...violationsOf(s, [...path, k]));
    }
  }
  return out;
}

/** Sets (or removes) the value at `path`, creating containers on the way. */
function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const container: Record<string | number, unknown> | unknown[] =
    typeof head === 'number'
      ? Array.isArray(root) && root.length > 0 ? [...root] : [{}]
      : root !== null && typeof root === 'object' && !Array.isArray(root) ? { ...(root as Record<string, unknown>) } : {};
  const key = head as never;
  if (rest.length === 0 && value === REMOVE) {
    delete (container as Record<string, unknown>)[key];
  } else {
    (container as Record<string, unknown>)[key] = setAt((container as Record<string, unknown>)[key], rest, value);
  }
  return container;
}

// ---------------------------------------------------------------------------------------------
// Whole requests.

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----zap',
  'application/xml',
  'application/octet-stream',
  'image/png',
  'application/jsonx',
  'json',
];

/** Text that JSON.parse refuses. */
const invalidJsonText = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 80 }),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v).slice(0, -1) || '{'),
    fc.constantFrom('{', '{"a":}', "{'a':1}", '{"a":1,}', 'undefined', 'NaN', '[1,2', '{"__proto__":', '\u0000', '{"a":"\\x"}'),
  )
  .filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return true;
    }
  });

/** Query-string junk whose keys never collide with the operation's own parameters. */
function junkQuery(reserved: ReadonlySet<string>): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 30 })), { maxLength: 4 })
    .map((pairs) =>
      pairs
        .filter(([k]) => !reserved.has(k))
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
        .join('&'),
    );
}

const SAMPLE_PATH_VALUES: Record<string, string> = {
  phone: '5511999990000',
  pendingId: 'pending-00000000-0000-4000-8000-000000000000',
  groupId: '120363012345678901-group',
  zaapId: '0'.repeat(32),
};

export interface InstanceRef {
  instanceId: string;
  instanceToken: string;
}

/** Arbitrary of malformed requests for one operation. */
export function malformedRequests(op: Operation, inst: InstanceRef): fc.Arbitrary<FuzzRequest> {
  const hasBody = op.method !== 'GET' && op.method !== 'HEAD';
  const reserved = new Set(op.query.map((p) => p.name));
  const validQuery: Record<string, string> = {};
  const queryArbs: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of op.query) if (p.required) queryArbs[p.name] = valueFor(p.schema);

  function pathWith(values: Record<string, string>): string {
    return op.template
      .replace('{instanceId}', inst.instanceId)
      .replace('{instanceToken}', inst.instanceToken)
      .replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => values[name] ?? encodeURIComponent(SAMPLE_PATH_VALUES[name] ?? 'x'));
  }
  const withQuery = (path: string, own: string, junk: string): string => {
    const q = [own, junk].filter(Boolean).join('&');
    return q ? `${path}?${q}` : path;
  };
  const validQueryString = fc.record(queryArbs).map((q) =>
    Object.entries({ ...validQuery, ...q })
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
      .join('&'),
  );

  const kinds: { weight: number; arbitrary: fc.Arbitrary<FuzzRequest> }[] = [];
  const base = fc.tuple(validQueryString, junkQuery(reserved));

  if (hasBody) {
    kinds.push({
      weight: 2,
      arbitrary: fc.tuple(base, invalidJsonText).map(([[own, junk], body]) => ({
        kind: 'invalid JSON',
        method: op.method,
        path: withQuery(pathWith({}), own, junk),
        contentType: 'application/json',
        body,
      })),
    });
    kinds.push({
      weight: 2,
      arbitrary: fc
        .tuple(base, fc.constantFrom(...WRONG_CONTENT_TYPES, undefined), fc.oneof(fc.string({ minLength: 1, maxLength: 60 }), fc.jsonValue().map((v) => JSON.stringify(v))))
        .map(([[own, junk], contentType, body]) => ({
          kind: contentType === undefined ? 'body without content type' : 'wrong content type',
          method: op.method,
          path: withQuery(pathWith({}), own, junk),
          ...(contentType === undefined ? {} : { contentType }),
          body,
        })),
    });
  }
  if (hasBody && op.body) {
    const bodySchema = op.body;
    const violations = violationsOf(bodySchema);
    kinds.push({
      weight: 1,
      arbitrary: fc.tuple(base, fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.array(fc.jsonValue({ maxDepth: 2 })))).map(([[own, junk], v]) => ({
        kind: 'not an object',
        method: op.method,
        path: withQuery(pathWith({}), own, junk),
        contentType: 'application/json',
        body: JSON.stringify(v),
      })),
    });
    if (violations.length > 0) {
      const extraKeys = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 });
      kinds.push({
        weight: 8,
        arbitrary: fc
          .tuple(base, valueFor(bodySchema), fc.constantFrom(...violations).chain((v) => v.value.map((value) => ({ v, value }))), extraKeys)
          .map(([[own, junk], valid, { v, value }, extra]) => {
            const known = new Set(Object.keys(bodySchema.properties ?? {}));
            const extras = Object.fromEntries(Object.entries(extra).filter(([k]) => !known.has(k)));
            const body = setAt({ ...extras, ...(valid as object) }, v.path, value);
            return { kind: `violation ${v.what}`, method: op.method, path: withQuery(pathWith({}), own, junk), contentType: 'application/json', body: JSON.stringify(body) };
          }),
      });
      kinds.push({
        weight: 1,
        arbitrary: fc.tuple(base, fc.integer({ min: 1, max: 64 })).map(([[own, junk], extraKb]) => ({
          kind: 'oversized body',
          method: op.method,
          path: withQuery(pathWith({}), own, junk),
          contentType: 'application/json',
          // Valid JSON that misses every required field, over the 1 MiB JSON limit.
          body: JSON.stringify({ junk: 'j'.repeat(1024 * 1024 + extraKb * 1024) }),
        })),
      });
    }
  }
  if (op.query.length > 0) {
    const queryViolations: fc.Arbitrary<{ own: string; what: string }>[] = [];
    for (const p of op.query) {
      const others = op.query.filter((q) => q !== p && q.required);
      const othersArb = fc.record(Object.fromEntries(others.map((q) => [q.name, valueFor(q.schema)])));
      const encode = (o: Record<string, unknown>): string =>
        Object.entries(o)
          .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
          .join('&');
      if (p.required) queryViolations.push(othersArb.map((o) => ({ own: encode(o), what: `${p.name} missing` })));
      const bad = violationsOf(p.schema, [p.name]).filter((v) => !v.what.endsWith('wrong type'));
      for (const v of bad) {
        queryViolations.push(
          fc.tuple(othersArb, v.value).map(([o, value]) => ({ own: encode({ ...o, [p.name]: typeof value === 'string' ? value : JSON.stringify(value) }), what: v.what })),
        );
      }
    }
    if (queryViolations.length > 0) {
      kinds.push({
        weight: 4,
        arbitrary: fc.tuple(fc.oneof(...queryViolations), junkQuery(reserved)).map(([{ own, what }, junk]) => ({
          kind: `query ${what}`,
          method: op.method,
          path: withQuery(pathWith({}), own, junk),
        })),
      });
    }
  }
  for (const p of op.pathParams) {
    const raw = fc
      .oneof(
        fc.string({ minLength: 1, maxLength: 80 }).map((s) => encodeURIComponent(s)),
        fc.integer({ min: 65, max: 400 }).map((n) => 'y'.repeat(n)),
        fc.constantFrom('%E0%A4%A', '%', '%zz', '%C0%AF', '%00', '%2F', '%3F'),
      )
      // "." and ".." are resolved by the client's URL parser into another, valid, route.
      .filter((v) => !/^(\.|%2e){1,2}$/i.test(v));
    kinds.push({
      weight: 3,
      arbitrary: fc.tuple(base, raw).map(([[own, junk], value]) => ({
        kind: `path ${p.name}`,
        method: op.method,
        path: withQuery(pathWith({ [p.name]: value }), own, junk),
      })),
    });
  }
  if (kinds.length === 0) {
    // No inputs at all: the only thing to vary is a query string the route ignores.
    kinds.push({
      weight: 1,
      arbitrary: junkQuery(reserved).map((junk) => ({ kind: 'junk query', method: op.method, path: withQuery(pathWith({}), '', junk) })),
    });
  }
  return fc.oneof(...kinds);
}
