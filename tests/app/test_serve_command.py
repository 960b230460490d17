"""``anonlab serve`` as a user starts it: a real server process, its printed login address, the
one-time token, and the command's bad options (exit code 2, one line, no traceback)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys

import httpx
import pytest

from anonlab.app import server


def _start(workdir, *extra):
    proc = subprocess.Popen(
        [sys.executable, "-m", "anonlab", "serve", "--port", "0", "--workdir", str(workdir),
         *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    for line in proc.stdout:
        found = re.search(r"(http://\S+/login\?token=\S+)", line)
        if found:
            return proc, found.group(1)
    proc.wait(timeout=10)
    raise AssertionError(f"no login address printed; exit {proc.returncode}")


def test_the_server_prints_a_one_time_login_on_loopback(tmp_path):
    proc, url = _start(tmp_path / "work")
    try:
        assert url.startswith("http://127.0.0.1:")
        base = url.split("/login")[0]
        with httpx.Client(base_url=base, follow_redirects=False) as client:
            assert client.get("/").status_code == 401  # no session yet
            login = client.get(url[len(base) :])
            assert login.status_code == 303 and login.headers["location"] == "/"
            assert "HttpOnly" in login.headers["set-cookie"]
            client.cookies = login.cookies
            page = client.get("/")
            assert page.status_code == 200 and "Start from your file" in page.text
            assert "script-src 'self'" in page.headers["content-security-policy"]
            # the token is spent: a second login with it is refused
            with httpx.Client(base_url=base, follow_redirects=False) as other:
                assert other.get(url[len(base) :]).status_code == 403
            # another host name for the same address is not answered (DNS rebinding)
            port = base.rsplit(":", 1)[1]
            assert client.get("/", headers={"host": f"attacker.example:{port}"}).status_code == 421
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert (tmp_path / "work" / "projects").is_dir()


def test_a_port_in_use_is_an_error_naming_it(tmp_path, cli):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code, _, err = cli(["serve", "--port", str(port), "--workdir", str(tmp_path / "w")])
    assert code == 2 and f"--port {port}" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--port", "70000"], "--port must be 0..65535"),
        (["--max-upload-mb", "0"], "--max-upload-mb must be at least 1"),
    ],
)
def test_bad_options_exit_2(cli, tmp_path, argv, words):
    code, _, err = cli(["serve", *argv, "--workdir", str(tmp_path / "w")])
    assert code == 2 and words in err


def test_a_workdir_that_is_a_file_is_refused(cli, tmp_path):
    (tmp_path / "f").write_text("x")
    code, _, err = cli(["serve", "--workdir", str(tmp_path / "f")])
    assert code == 2 and "is a file" in err


def test_without_the_extra_the_command_says_what_to_install(cli, monkeypatch, tmp_path):
    monkeypatch.setattr(server, "missing_extra", lambda: "uvicorn")
    code, _, err = cli(["serve", "--workdir", str(tmp_path / "w")])
    assert code == 2 and "pip install 'anonlab[app]'" in err and "uvicorn" in err


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("127.0.0.2", True),
     ("0.0.0.0", False), ("192.168.1.4", False), ("example.org", False)],
)  # fmt: skip
def test_loopback(host, loopback):
    assert server.is_loopback(host) is loopback
