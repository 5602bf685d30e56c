# Hive Arena's server (and its bots' runner): docker build -t hive-arena .
# docker-compose.yml runs it behind haproxy; alone: docker run -p 8080:8080 hive-arena
# (with no --redis-url the server keeps an embedded Redis under /app/data).

# The web client's one npm package (@msgpack/msgpack), which the server serves from
# client/node_modules: installed here so that the final image needs no node.
FROM node:20-slim AS client
WORKDIR /app/client
COPY client/package.json client/package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY . .
COPY --from=client /app/client/node_modules client/node_modules
# Installed in place (-e): the server serves client/ from beside its own source folder
# (CLIENT_DIR in server/app.py), which a copy in site-packages would not have.
RUN pip install -e . \
    && useradd --system --uid 10001 --home-dir /app hive \
    && mkdir -p data \
    && chown hive data
USER hive
# Alone (no --redis-url) the server keeps its embedded Redis's append-only file here.
VOLUME ["/app/data"]
EXPOSE 8080
CMD ["hive-server", "--host", "0.0.0.0"]
