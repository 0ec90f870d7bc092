# zapgate's container image: a build stage with the compiler toolchain that installs everything,
# compiles the SQLite addon and the TypeScript, and a runtime stage with the production dependencies,
# the compiled build and nothing else (no compiler, no sources, no dev dependencies).
#
#   docker build -t zapgate .                      podman build --format docker -t zapgate .
#   docker run -p 3000:3000 -v zapgate-data:/data zapgate        (or: docker compose up, compose.yaml)
#
# podman builds OCI images unless told `--format docker`, and the OCI format has no HEALTHCHECK: it
# is dropped (with a warning). README.md, "Container", says more, and how to make a stand-in for
# node:20-bookworm-slim on a machine that cannot pull it (scripts/local-base-image.sh).

FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles from source when its prebuilt binary cannot be downloaded: a C++ toolchain.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Dependencies first (a layer reused while only sources change); their install scripts run through
# `npm rebuild`, because the project's own `prepare` (the build) needs the sources copied below.
# node-gyp compiles against the headers of the image's own Node (include/node: the official image
# ships them, and so does the stand-in) instead of downloading them.
COPY package.json package-lock.json ./
RUN for dir in "$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")" /usr/local /usr; do \
      if [ -f "$dir/include/node/common.gypi" ]; then export npm_config_nodedir="$dir"; break; fi; \
    done \
  && npm ci --ignore-scripts --no-audit --no-fund && npm rebuild
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/build.mjs
COPY bin ./bin
COPY src ./src
COPY simnet/src ./simnet/src
# Then only what runs: no dev dependencies, and none of the SQLite addon's sources and objects.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund \
  && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
       node_modules/better-sqlite3/build/Release/obj node_modules/better-sqlite3/build/Release/obj.target \
       node_modules/better-sqlite3/build/Release/.deps node_modules/better-sqlite3/build/deps

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    ZAPGATE_HOST=0.0.0.0 \
    ZAPGATE_PORT=3000 \
    ZAPGATE_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
# The data dir (SQLite, media, credentials) is a volume owned by the unprivileged `node` user
# (uid 1000) the gateway runs as; the gateway keeps it 0700.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Ready = listening, database reachable and this process owning it (GET /readyz, 200 or 503).
# Kept in Docker-format images only (podman: build with --format docker); compose.yaml repeats it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.ZAPGATE_PORT || 3000) + '/readyz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
# node is PID 1: zapgate handles SIGTERM itself (drains, closes sessions, exits 0).
CMD ["node", "bin/zapgate.js", "serve"]
