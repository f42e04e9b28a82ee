# One image per process kind; docker-compose.yml picks the target.
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV PUPPETEER_SKIP_DOWNLOAD=true
COPY package.json package-lock.json .npmrc ./
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim AS service
WORKDIR /app
ENV NODE_ENV=production LISTEN_HOST=0.0.0.0
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/schema ./schema
# The ticket page's script and style, served by the REST adapter as they are written.
COPY --from=build /app/rest-adapter/public/assets ./rest-adapter/public/assets
USER node

# The CV service renders PDFs with the system Chromium; Puppeteer never downloads its own.
FROM service AS cv
USER root
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium fonts-noto-core fonts-noto-color-emoji \
  && rm -rf /var/lib/apt/lists/*
ENV CHROMIUM_PATH=/usr/bin/chromium
USER node
