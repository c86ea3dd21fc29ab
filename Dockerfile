# blitz-bot image. Stages:
#   build   – installs every dependency (better-sqlite3 may need a compiler), runs `npm run build`
#             (tsc -p tsconfig.build.json into dist/) and prunes to production dependencies.
#   bot     – the runtime: Node, git, bubblewrap, dist/ and production node_modules; runs
#             `node --max-old-space-size=1024 dist/main.js` (npm start's heap flag, see package.json)
#             as the non-root user `blitz`. Gates (build, smoke, preview) run in bubblewrap sandboxes
#             (blitz.config.yml `runner.sandbox: bubblewrap`).
#   runner  – `bot` plus the agent CLIs from the npm registry at the pinned versions below, and what
#             opencode would fetch at run time (seeded, see below):
#             docker build --target runner --build-arg CLAUDE_CODE_VERSION=2.1.332 .
#             `blitz-bot runner` runs as `blitz` too and starts every worker in a bubblewrap sandbox
#             (user, PID, mount, IPC namespaces: its own /proc, none of the runner's files); it holds
#             its runner token and no forge secret. Nothing in the image carries file capabilities or
#             a setuid bit (Debian's bwrap is not setuid): no process of the runner user can become root.
# Secrets are given as files (GITEA_TOKEN_FILE=/run/secrets/…), never baked into the image.
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-assets.mjs ./scripts/
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS bot
ENV NODE_ENV=production \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/blitz.db
# git for every clone and worktree; ssh for ssh remotes.
RUN apt-get update \
  && apt-get install -y --no-install-recommends git openssh-client ca-certificates bubblewrap \
  && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 blitz \
  && useradd --system --uid 10001 --gid blitz --home-dir /home/blitz --create-home --shell /usr/sbin/nologin blitz
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json app.yml ./
# /data holds the SQLite file and the runner workspace (a sandbox sees only its own directories there).
# /settings holds the .env /probot writes (BLITZ_ENV_FILE=/settings/.env in compose.yaml, on a volume the
# replicas share): made here owned by blitz, so a new named volume mounted on it starts out so too.
RUN mkdir -p /data/workspace /settings \
  && chown blitz:blitz /data /data/workspace /settings /app \
  && chmod 0700 /data /settings
USER blitz
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--max-old-space-size=1024", "dist/main.js"]
CMD ["serve"]

FROM bot AS runner
# Pinned agent CLIs from the npm registry; an empty version leaves that CLI out.
ARG CLAUDE_CODE_VERSION=2.1.332
ARG CODEX_VERSION=0.171.0
ARG OPENCODE_VERSION=1.18.33
ARG GEMINI_CLI_VERSION=0.61.0
ARG QWEN_CODE_VERSION=0.24.4
USER root
RUN set -e; pkgs=""; \
  if [ -n "${CLAUDE_CODE_VERSION}" ]; then pkgs="$pkgs @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}"; fi; \
  if [ -n "${CODEX_VERSION}" ]; then pkgs="$pkgs @openai/codex@${CODEX_VERSION}"; fi; \
  if [ -n "${OPENCODE_VERSION}" ]; then pkgs="$pkgs opencode-ai@${OPENCODE_VERSION}"; fi; \
  if [ -n "${GEMINI_CLI_VERSION}" ]; then pkgs="$pkgs @google/gemini-cli@${GEMINI_CLI_VERSION}"; fi; \
  if [ -n "${QWEN_CODE_VERSION}" ]; then pkgs="$pkgs @qwen-code/qwen-code@${QWEN_CODE_VERSION}"; fi; \
  if [ -n "$pkgs" ]; then npm install --global --no-audit --no-fund $pkgs && npm cache clean --force; fi
# opencode installs @opencode-ai/plugin (its own version) from the registry at every start, into the
# worker's HOME, new per attempt. It is seeded here as the agents tier seeds it (scripts/seed-runtime.ts,
# run with Node's type stripping), root-owned so read-only to workers, and docker/blitz.config.yml's
# opencode entry points XDG_CONFIG_HOME at /opt/blitz/opencode/config-home: an air-gapped runner
# needs nothing from the registry at run time.
COPY scripts/seed-runtime.ts ./scripts/
RUN if [ -n "${OPENCODE_VERSION}" ]; then \
    node --experimental-strip-types scripts/seed-runtime.ts opencode "${OPENCODE_VERSION}" /opt/blitz/opencode \
    && npm cache clean --force; fi
# The runner runs as blitz, not root, with no capability: workers are kept apart by bubblewrap's
# namespaces (an unprivileged user namespace each), not by a second uid it would need privileges to
# switch to.
USER blitz
ENTRYPOINT ["node", "--max-old-space-size=1024", "dist/main.js"]
# A runner has no HTTP server: the healthcheck is the bot's.
HEALTHCHECK NONE
CMD ["runner"]
