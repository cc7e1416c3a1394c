# svc-hub's image: the single executable (npm run build:exe) on Debian's slim image, run as a user of its own.
# It copies the image's build of the executable, the one without bytecode: 9 MB less keeps the image under
# 200 MB, for a start about a third slower (docs/run-anywhere.md).
#
#   npm run build:exe                                      # dist/exe/image/svc-hub-linux-x64, the one file copied here
#   docker build -t svc-hub .                              # or: podman build --format docker -t svc-hub .
#   docker run -p 8080:8080 -v svc-hub-data:/data svc-hub
#
# docs/run-anywhere.md says how to run it: volume, ports, settings, health, stop.
FROM docker.io/library/debian:bookworm-slim

# Given by whoever builds it (the image suite does); the labels say which svc-hub this is.
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown

LABEL org.opencontainers.image.title="svc-hub" \
      org.opencontainers.image.description="A self-hostable visitor data, collection and configuration service, with a conformance suite for any implementation of its interface" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.base.name="docker.io/library/debian:bookworm-slim"

# A user of its own, with a fixed id, so that a volume or a bind mount can be given to it (chown 10001).
RUN groupadd --gid 10001 svc-hub \
    && useradd --uid 10001 --gid svc-hub --home-dir /data --no-create-home --no-log-init --shell /usr/sbin/nologin svc-hub \
    && mkdir /data \
    && chown svc-hub:svc-hub /data

COPY dist/exe/image/svc-hub-linux-x64 /usr/local/bin/svc-hub

# All interfaces inside the container (the host decides what to publish), port 8080, the data in /data.
ENV PORT=8080 \
    SVC_HOST=0.0.0.0 \
    SVC_DATA_DIR=/data
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
USER svc-hub

# No curl in the image: the executable asks GET /readyz itself (exit 0 when it answers 200).
HEALTHCHECK --interval=5s --timeout=5s --start-period=10s --retries=3 CMD ["/usr/local/bin/svc-hub", "health"]
# The server is PID 1 and stops cleanly on SIGTERM (exit code 0): `docker stop` needs no init process.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/svc-hub"]
CMD ["start"]
