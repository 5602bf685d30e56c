"""The server's settings: every field of ``Settings`` is a flag of ``hive-server``, with the
field's default, and bad values are refused before the server starts."""

from __future__ import annotations

import dataclasses

import pytest

from server.settings import Settings, flag, from_args, parser


def test_every_setting_is_a_flag_with_the_fields_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HIVE_REDIS_URL", raising=False)
    monkeypatch.delenv("HIVE_DATABASE_URL", raising=False)
    monkeypatch.delenv("HIVE_TRUSTED_PROXIES", raising=False)
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
