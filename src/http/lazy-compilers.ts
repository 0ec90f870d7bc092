// Schema compilers that build a route's validator and serializer when the route is first used, not
// when the server starts. Fastify's defaults compile every schema of every route at registration:
// with ~250 routes that was ~2 of the ~3.8 s of CPU a gateway took from `zapgate serve` to a green
// /readyz (a CPU profile: fast-json-stringify validating and walking schemas, then Ajv's code
// generation), paid again at every restart and by every test that builds a server, for routes most
// processes never serve. A schema is still compiled exactly once (test/http/openapi.test.ts and the
// fuzz test call every route, so a schema that does not compile still fails a test).
//
// Serializers are also built once per distinct schema rather than once per route and status: most
// routes answer the same error and send bodies, and schemas equal as JSON (all fast-json-stringify
// reads of them) share one serializer.
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import ValidatorSelector from '@fastify/ajv-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;
type ValidatorFactory = ReturnType<typeof ValidatorSelector>;
type Validator = ReturnType<ReturnType<ValidatorFactory>>;

/** Fastify's default serializer factory, compiling on first use, with a cache per server (its shared schemas are fixed by then). */
export function lazySerializerFactory(): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    const built = new Map<string, Serializer>();
    return (route) => {
      let serialize: Serializer | undefined;
      return (payload) => {
        if (!serialize) {
          const key = JSON.stringify(route.schema);
          serialize = built.get(key) ?? compile(route);
          built.set(key, serialize);
        }
        return serialize(payload);
      };
    };
  };
}

/**
 * Fastify's default (Ajv) validator factory, compiling on first use. The stand-in passes Fastify's
 * data context on (so Ajv may still replace a root value) and reads `errors` from the real validator,
 * where Fastify looks for them after a failed validation.
 */
export function lazyValidatorFactory(): ValidatorFactory {
  const build = ValidatorSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    return (route) => {
      let validate: ((data: unknown, context?: unknown) => unknown) & { errors?: unknown } | undefined;
      const standIn = (data: unknown, context?: unknown): unknown => {
        validate ??= compile(route) as (data: unknown, context?: unknown) => unknown;
        return validate(data, context);
      };
      Object.defineProperties(standIn, {
        // Tells Fastify to pass the data context (fastify/lib/validation.js).
        schemaEnv: { value: true },
        errors: { get: () => validate?.errors ?? null },
      });
      return standIn as unknown as Validator;
    };
  };
}
