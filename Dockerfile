# Build stage: the Swift toolchain image compiles a release binary.
FROM swift:6.1-bookworm AS build
RUN apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libevent-dev libssl-dev zlib1g-dev libnghttp2-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY scripts/build-release.sh ./scripts/
RUN binary="$(scripts/build-release.sh)" && cp "$binary" /usr/local/bin/orrery

# Run stage: slim Debian with the shared libraries libevent, OpenSSL, zlib and nghttp2 need.
FROM debian:bookworm-slim
RUN apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        libevent-2.1-7 libevent-openssl-2.1-7 libevent-pthreads-2.1-7 libssl3 zlib1g libnghttp2-14 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /srv/orrery orrery \
    && mkdir -p /srv/orrery && chown orrery:orrery /srv/orrery
COPY --from=build /usr/local/bin/orrery /usr/local/bin/orrery
WORKDIR /srv/orrery
COPY stubs ./stubs
COPY config ./config
USER orrery
EXPOSE 8080
# Listens on all interfaces inside the container; the admin API still answers only loopback clients unless
# ORRERY_ADMIN_TOKEN is set. With --tls-port or --mitm the local CA is made in /srv/orrery/.local/share/orrery/ca
# (mount a volume there, or pass --ca-dir, to keep it across containers).
ENTRYPOINT ["orrery", "serve", "--host", "0.0.0.0"]
