// Response serializers, built once per distinct schema instead of once per route and status.
// Fastify's default builds a fast-json-stringify function for every response schema of every route,
// and each build validates and walks the shared named schemas (`app.addSchema`) again: with ~250
// routes, most answering the same error and send bodies, that was ~3.7 of the ~5.2 s a gateway took
// to start (a CPU profile of `zapgate serve` to a green /readyz), paid again at every restart.
// Schemas equal as JSON (all fast-json-stringify reads of them) share one serializer.
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/** Fastify's default serializer factory, with a cache per server (its shared schemas are fixed by then). */
export function cachingSerializerFactory(): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    const built = new Map<string, Serializer>();
    return (route) => {
      const key = JSON.stringify(route.schema);
      let serialize = built.get(key);
      if (!serialize) {
        serialize = compile(route);
        built.set(key, serialize);
      }
      return serialize;
    };
  };
}
