# syntax=docker/dockerfile:1
# Build stage: compile TypeScript with the dev dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY src ./src
RUN npx tsc -p tsconfig.build.json

# Run stage: production dependencies only, non-root.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORTAL_MOCK_HOST=0.0.0.0 \
    PORTAL_MOCK_PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY fixtures ./fixtures
COPY scenarios ./scenarios
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORTAL_MOCK_PORT||3000)+'/__admin/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node is PID 1's direct child via exec form: SIGTERM reaches the server, which closes gracefully.
STOPSIGNAL SIGTERM
CMD ["node", "dist/server.js"]
