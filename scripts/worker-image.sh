#!/usr/bin/env sh
# npm run worker:image [-- EXTRA BUILD ARGS]: builds the Docker worker image (docker/worker.Dockerfile) as
# ralph-worker:node20 (or $RALPH_WORKER_IMAGE) with docker, or podman when there is no docker. It pulls the
# node:20 image and the npm dependencies, so it needs a registry and npm.
set -eu
cd "$(dirname "$0")/.."
image="${RALPH_WORKER_IMAGE:-ralph-worker:node20}"
if [ -n "${CONTAINER_TOOL:-}" ]; then tool="$CONTAINER_TOOL"
elif command -v docker > /dev/null 2>&1; then tool=docker
elif command -v podman > /dev/null 2>&1; then tool=podman
else
  echo "worker:image needs docker or podman on PATH (or CONTAINER_TOOL=...)." >&2
  exit 2
fi
echo "Building $image with $tool from docker/worker.Dockerfile …"
"$tool" build -f docker/worker.Dockerfile -t "$image" "$@" .
echo "Built $image. Check it: npx ralph workers test --image $image"
