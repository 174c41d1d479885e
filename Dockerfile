# syntax=docker/dockerfile:1
# Build stage: compile TypeScript and bundle the server with the dev dependencies.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY src ./src
COPY scripts ./scripts
# tsc, then the bundles (dist/portal-mock.mjs, dist/start-mock.mjs and their shared chunk), which start faster than
# hundreds of modules
RUN npm run build

# Run stage: production dependencies only, non-root.
# Every flag has an environment twin (docker run -e NAME=VALUE):
#   PORTAL_MOCK_PORT, PORTAL_MOCK_HOST, PORTAL_MOCK_SEED, PORTAL_MOCK_SCENARIO, PORTAL_MOCK_SCENARIOS (comma-separated),
#   PORTAL_MOCK_DATA (mount a volume there), PORTAL_MOCK_STATE, PORTAL_MOCK_NOW, PORTAL_MOCK_USERS, PORTAL_MOCK_LOG_LEVEL,
#   PORTAL_MOCK_ADMIN_TOKEN, PORTAL_MOCK_JOURNAL_LIMIT, PORTAL_MOCK_BODY_LIMIT, PORTAL_MOCK_FIXTURES,
#   PORTAL_MOCK_HTTPS=true with PORTAL_MOCK_CA_DIR (mount a volume so phones keep trusting the same CA),
#   PORTAL_MOCK_TLS_CERT / PORTAL_MOCK_TLS_KEY (mounted files), PORTAL_MOCK_PORT_FILE, PORTAL_MOCK_NO_BANNER.
# test/process/package-install.test.ts runs this stage's CMD and HEALTHCHECK on the packed package (no Docker engine
# needed).
FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    PORTAL_MOCK_HOST=0.0.0.0 \
    PORTAL_MOCK_PORT=3000 \
    PORTAL_MOCK_CA_DIR=/home/node/.portal-mock/ca
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY fixtures ./fixtures
COPY public ./public
COPY scenarios ./scenarios
COPY openapi.json openapi.admin.json openapi-examples.json ./
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD node --no-warnings -e "process.env.NODE_TLS_REJECT_UNAUTHORIZED='0';const s=/^(1|true|yes|on)$/i.test(process.env.PORTAL_MOCK_HTTPS||'')||process.env.PORTAL_MOCK_TLS_CERT?'https':'http';fetch(s+'://127.0.0.1:'+(process.env.PORTAL_MOCK_PORT||3000)+'/__admin/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node is PID 1's direct child via exec form: SIGTERM reaches the server, which closes gracefully.
STOPSIGNAL SIGTERM
CMD ["node", "dist/portal-mock.mjs"]
