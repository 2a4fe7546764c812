#!/usr/bin/env bash
# Installs, on Debian or Ubuntu and only when missing, the system libraries Orrery builds against (libevent with
# OpenSSL and pthreads, zlib, nghttp2, pkg-config) and, with --with-test-tools, the programs its tests drive: curl,
# nghttp and h2load, Python with requests, websockets, openapi-schema-validator, h2, httpx and grpcio, Node.js, headless Chromium and chromedriver (the dashboard's browser
# tests), openssl, and Java with the Python package wiremock, whose standalone WireMock jar the WireMock comparison
# runs against, nginx (the fleet test) and promtool (Debian's prometheus, the metrics test).
#
#   scripts/install-dependencies.sh                    # what building and serving need (scripts/run.sh)
#   scripts/install-dependencies.sh --with-test-tools  # and what the tests use (scripts/test.sh)
set -euo pipefail

with_test_tools=false
for argument in "$@"; do
    case "$argument" in
        --with-test-tools) with_test_tools=true ;;
        *) echo "usage: scripts/install-dependencies.sh [--with-test-tools]" >&2; exit 2 ;;
    esac
done

missing=()
pkg-config --exists libevent libevent_openssl libevent_pthreads 2>/dev/null || missing+=(libevent-dev)
pkg-config --exists zlib 2>/dev/null || missing+=(zlib1g-dev)
pkg-config --exists libnghttp2 2>/dev/null || missing+=(libnghttp2-dev)
pkg-config --exists openssl 2>/dev/null || missing+=(libssl-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if $with_test_tools; then
    command -v curl >/dev/null 2>&1 || missing+=(curl)
    command -v openssl >/dev/null 2>&1 || missing+=(openssl)
    command -v python3 >/dev/null 2>&1 || missing+=(python3)
    command -v node >/dev/null 2>&1 || missing+=(nodejs)
    command -v chromium >/dev/null 2>&1 || missing+=(chromium)
    command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
    command -v unshare >/dev/null 2>&1 || missing+=(util-linux)
    # javac too: the WireMock admin tests compile a program against WireMock's Java client.
    command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
    # The fleet test runs three daemons behind a real nginx; the metrics test checks the text with promtool.
    command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
    command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
    command -v nghttp >/dev/null 2>&1 || missing+=(nghttp2-client)
fi

if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "need root or sudo to install: ${missing[*]}" >&2; exit 1; }
        sudo="sudo"
    fi
    echo "Installing ${missing[*]} ..." >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# openapi-schema-validator, the second judge of JSON Schema verdicts in the OpenAPI tests (schema_oracle.py).
if $with_test_tools && ! python3 -c "import openapi_schema_validator" >/dev/null 2>&1; then
    echo "Installing the Python package openapi-schema-validator ..." >&2
    python3 -m pip install --quiet "openapi-schema-validator>=0.6" \
        || python3 -m pip install --quiet --break-system-packages "openapi-schema-validator>=0.6"
fi

# openapi-core, the second judge of request verdicts in the OpenAPI serving tests (openapi_contract_oracle.py).
if $with_test_tools && ! python3 -c "import openapi_core" >/dev/null 2>&1; then
    echo "Installing the Python package openapi-core ..." >&2
    python3 -m pip install --quiet "openapi-core>=0.19" \
        || python3 -m pip install --quiet --break-system-packages "openapi-core>=0.19"
fi

# Python's requests, for the python3 on PATH (Debian's own, or another): the proxy clients in the tests use it.
if $with_test_tools && ! python3 -c "import requests" >/dev/null 2>&1; then
    echo "Installing the Python package requests ..." >&2
    if [ "$(command -v python3)" = /usr/bin/python3 ] && command -v apt-get >/dev/null 2>&1; then
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-requests >/dev/null
    else
        python3 -m pip install --quiet requests
    fi
fi

# The Python package websockets: the WebSocket client and upstream of the real-time tests.
if $with_test_tools && ! python3 -c "import websockets" >/dev/null 2>&1; then
    echo "Installing the Python package websockets ..." >&2
    python3 -m pip install --quiet "websockets>=12" || python3 -m pip install --quiet --break-system-packages "websockets>=12"
fi

# The Python package wiremock: its standalone WireMock jar is the reference scripts/wiremock-compare.py runs.
if $with_test_tools && ! python3 -c "import wiremock" >/dev/null 2>&1; then
    echo "Installing the Python package wiremock ..." >&2
    python3 -m pip install --quiet wiremock || python3 -m pip install --quiet --break-system-packages wiremock
fi

# The HTTP/2 tests' Python clients: h2 (hand-made frames), httpx with HTTP/2, and grpcio with its tools (a real gRPC
# client and server on loopback).
if $with_test_tools && ! python3 -c "import h2, httpx, h2.connection, grpc, grpc_tools" >/dev/null 2>&1; then
    echo "Installing the Python packages h2, httpx[http2], grpcio and grpcio-tools ..." >&2
    python3 -m pip install --quiet h2 "httpx[http2]" grpcio grpcio-tools \
        || python3 -m pip install --quiet --break-system-packages h2 "httpx[http2]" grpcio grpcio-tools
fi
