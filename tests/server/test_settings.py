"""The server's settings: every field of ``Settings`` is a flag of ``hive-server``, with the
field's default, and bad values are refused before the server starts."""

from __future__ import annotations

import dataclasses

import pytest

from server.settings import Settings, flag, from_args, parser
from server.storage.connect import SentinelURL, parse_sentinel_url, shown


def test_every_setting_is_a_flag_with_the_fields_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HIVE_REDIS_URL", raising=False)
    monkeypatch.delenv("HIVE_DATABASE_URL", raising=False)
    monkeypatch.delenv("HIVE_TRUSTED_PROXIES", raising=False)
    monkeypatch.delenv("HIVE_ON_NO_REPLICA", raising=False)
    assert from_args([]) == Settings()
    text = parser().format_help()
    for field in dataclasses.fields(Settings):
        assert flag(field.name) in text


def test_flags_and_the_environment_set_the_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIVE_REDIS_URL", "redis://example:6379/1")
    monkeypatch.setenv("HIVE_TRUSTED_PROXIES", "10.0.0.0/8")
    monkeypatch.setenv("HIVE_DATABASE_URL", "postgresql://hive@db/hive")
    settings = from_args(["--queue-limit", "1000", "--session-ttl", "60", "--port", "0"])
    assert (settings.queue_limit, settings.session_ttl, settings.port) == (1000, 60.0, 0)
    assert settings.redis_url == "redis://example:6379/1"
    assert settings.database_url == "postgresql://hive@db/hive"
    assert [str(n) for n in settings.proxies] == ["10.0.0.0/8"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--queue-limit", "-1"],
        ["--hello-timeout", "0"],
        ["--bot-workers", "x"],
        ["--trusted-proxies", "not-an-address"],
        ["--database-url", "not a url"],
        ["--database-url", "mysql://hive@db/hive"],
    ],
)
def test_bad_values_are_refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        from_args(argv)
    assert "error" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("url", "read"),
    [
        (
            "redis+sentinel://127.0.0.1:26379/hive",
            SentinelURL((("127.0.0.1", 26379),), "hive"),
        ),
        (
            "redis+sentinel://:s3cret@a:1,b.example:26380,[::1]:3/hive-main/2",
            SentinelURL(
                (("a", 1), ("b.example", 26380), ("::1", 3)), "hive-main", 2, None, "s3cret"
            ),
        ),
        (
            "redis+sentinel://ada:p%40ss@s1:26379/hive",
            SentinelURL((("s1", 26379),), "hive", 0, "ada", "p@ss"),
        ),
    ],
)
def test_a_sentinel_url_names_the_sentinels_the_service_and_the_database(
    url: str, read: SentinelURL
) -> None:
    assert parse_sentinel_url(url) == read
    assert "s3cret" not in repr(read) and "p@ss" not in repr(read)
    assert Settings(redis_url=url).replicas == 1  # through Sentinel, a replica by default
    assert from_args(["--redis-url", url]).redis_url == url


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("redis+sentinel://:s3cret@s1/hive", "HOST:PORT"),
        ("redis+sentinel://:s3cret@s1:26379", "service name is missing"),
        ("redis+sentinel://:s3cret@s1:26379/", "service name is missing"),
        ("redis+sentinel://:s3cret@s1:26379,/hive", "HOST:PORT"),
        ("redis+sentinel://:s3cret@s1:99999/hive", "HOST:PORT"),
        ("redis+sentinel://:s3cret@s1:26379/hive/x", "database number"),
        ("redis+sentinel://:s3cret@s1:26379/hive/1/2", "database number"),
        ("sentinel://:s3cret@s1:26379/hive", "not a Redis URL"),
    ],
)
def test_a_malformed_redis_url_is_refused_saying_why_and_not_the_password(
    url: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        from_args(["--redis-url", url])
    err = capsys.readouterr().err
    assert says in err and "s3cret" not in err, err
    with pytest.raises(ValueError, match=says):
        Settings(redis_url=url)


def test_the_replicas_waited_for_and_what_a_change_none_held_gets() -> None:
    assert Settings().replicas == 0  # the embedded Redis: no replica
    assert Settings(redis_url="redis://r:6379/0").replicas == 0
    assert Settings(redis_url="redis://r:6379/0", redis_replicas=2).replicas == 2
    settings = from_args(["--redis-replicas", "0", "--on-no-replica", "acknowledge"])
    assert (settings.replicas, settings.on_no_replica) == (0, "acknowledge")
    with pytest.raises(SystemExit):
        from_args(["--on-no-replica", "maybe"])
    with pytest.raises(ValueError, match="--redis-wait must be less than --redis-timeout"):
        Settings(redis_replicas=1, redis_wait=3.0, redis_timeout=3.0)
    with pytest.raises(SystemExit):
        from_args(["--redis-replicas", "1", "--redis-wait", "5"])
    assert shown("redis+sentinel://:s3cret@s1:26379/hive") == "redis+sentinel://:***@s1:26379/hive"
    assert shown("redis://ada:s3cret@r:6379/0") == "redis://ada:***@r:6379/0"
