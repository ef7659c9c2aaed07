# syntax=docker/dockerfile:1
# gateway-bot: one image for every role (ROLE=web|worker|scheduler). See docs/deploy.md.
ARG NODE_VERSION=22

# Build stage: dev dependencies (tsc) compile src/ into dist/; none of it reaches the runtime image.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

# Runtime stage: production dependencies and the compiled JavaScript, run by the unprivileged `node` user.
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# Files stay root-owned and read-only to the process: it writes nothing to disk (state lives in Redis).
USER node
EXPOSE 3000
# Every role serves /healthz on PORT (200 once it serves and Redis answers). Slim images have no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM starts the graceful stop (10 s for in-flight work); give it longer than that before SIGKILL.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
