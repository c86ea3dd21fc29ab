# blitz-bot: one process, one HTTP server. Multi-stage: dependencies are built (better-sqlite3 may need
# a compiler) in a throwaway stage; the runtime image runs as the unprivileged `node` user.
FROM node:22-bookworm-slim AS deps
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# The compiled JavaScript (`npm run build`): TypeScript and the type packages are dev dependencies, and
# no native module is needed to compile, so install scripts are skipped here.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-assets.mjs ./scripts/
COPY src ./src
RUN npm run build

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/blitz.db
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json app.yml ./
COPY --from=build /app/dist ./dist
# /app stays writable by the bot only for `.env`, which the GitHub App registration page writes.
RUN mkdir -p /data && chown node:node /data /app
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js", "serve"]
