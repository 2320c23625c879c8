# Builds the api/worker image used by docker-compose.yml.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY workflows workflows
COPY activities activities
COPY migrations migrations
COPY client client
COPY dashboard dashboard
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:22-bookworm-slim
ENV NODE_ENV=production
# Written by `npm run build`: a worker loads it instead of bundling its workflows at every start.
ENV WORKFLOW_BUNDLE=dist/workflow-bundle.js
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/dashboard/dist dashboard/dist
COPY --from=build /app/migrations migrations
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 8080
# `--role api` or `--role worker` to run one half; default runs both.
CMD ["node", "dist/src/main.js"]
