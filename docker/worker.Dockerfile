# The Docker worker image (issue #39): Node 20 with git and the ralph CLI, which runs one job of a build
# (`ralph worker`) in a container. The coordinator (the app or `ralph build --workers docker`) puts the job in and
# takes the result out through the Docker Engine API: no shared folder, no model key in the image.
#
# Build it from the repository's root (it needs a registry for the node image and npm for the dependencies):
#   npm run worker:image                     # docker build (or podman build) -t ralph-worker:node20 …
#   docker build -f docker/worker.Dockerfile -t ralph-worker:node20 .
# Check it on the engine DOCKER_HOST names:  npx ralph workers test --image ralph-worker:node20
#
# The tests never build this file (no registry is reachable on the build machines): they use an image made from
# the host's node and git by scripts/worker-image-local.ts.

# The build stage needs python3, make and g++ (better-sqlite3 may build from source); the runtime does not.
ARG NODE_IMAGE=node:20-bookworm
ARG RUNTIME_IMAGE=node:20-bookworm-slim

# The CLI with its runtime dependencies, compiled (out/node) and with better-sqlite3 built for this Node.
FROM ${NODE_IMAGE} AS build
WORKDIR /opt/ralph
COPY package.json package-lock.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY resources ./resources
COPY src/main ./src/main
COPY src/shared ./src/shared
COPY tsconfig.base.json tsconfig.json tsconfig.node.json ./
# `prepare` (scripts/node-build.mjs) compiles the CLI to out/node once the dependencies are in.
RUN npm ci --omit=dev --no-audit --no-fund && test -f out/node/cli.js

FROM ${RUNTIME_IMAGE}
RUN apt-get update \
  && apt-get install -y --no-install-recommends git ca-certificates \
  && rm -rf /var/lib/apt/lists/*
COPY --from=build /opt/ralph /opt/ralph
RUN ln -s /opt/ralph/bin/ralph.js /usr/local/bin/ralph \
  && mkdir -p /job /result /work \
  && chown node:node /job /result /work
# Jobs run as an ordinary user in /work; the job's files arrive in /job, the result is taken from /result.
USER node
WORKDIR /work
ENV HOME=/home/node
CMD ["ralph", "--version"]
