# syntax=docker/dockerfile:1
# alertwall in one image: the API under /api (webhook receivers at /api/webhooks/<name>, the live
# socket at /api/socket.io) and the web UI at /, on port 8080. PostgreSQL is external: DATABASE_URL
# is required. Every variable is described in docs/operations.md. tests/cluster/dockerfile.test.ts
# parses this file and replays its steps outside Docker: keep to COPY, WORKDIR, ENV and npm RUNs.

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: the web UI is a static SvelteKit build, which needs the dev dependencies ----
FROM ${NODE_IMAGE} AS build
WORKDIR /src
# The command-line client is a package of its own in cli/, a dependency by path: npm ci links it.
COPY package.json package-lock.json ./
COPY cli/package.json ./cli/
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY shared ./shared
COPY web ./web
RUN npm run build:web

# ---- runtime: production dependencies, the TypeScript sources Node runs as they are (type
# stripping), and the built UI ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 HEARTBEAT_SEVERITY=major
WORKDIR /app
COPY package.json package-lock.json ./
COPY cli/package.json ./cli/
# --omit=optional leaves out embedded PostgreSQL's binaries (60 MB): the image always uses DATABASE_URL.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --omit=optional --no-audit --no-fund
COPY shared ./shared
COPY server ./server
COPY cli ./cli
COPY bin ./bin
COPY deploy/docker-entrypoint.sh ./deploy/docker-entrypoint.sh
COPY --from=build /src/web/build ./web/build
RUN ln -s /app/cli/alerta.js /usr/local/bin/alerta
ARG GIT_REVISION=unknown
ARG BUILD_DATE=unknown
ENV GIT_REVISION=${GIT_REVISION} BUILD_DATE=${BUILD_DATE}
# The base image's `node` user, by number so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/api/_').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/deploy/docker-entrypoint.sh"]
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=60", "--import", "./server/preload.mjs", "server/main.ts"]
