"""remotescalar() and remoteclassesmatching() over the protocol (a fake server)."""
from __future__ import annotations

from pathlib import Path

from cfpromise.net import keys
from cfpromise.net import protocol as P
from tests.files.agentrun import run_agent
from tests.net.serverfix import FakeServer

ANSWERS = {b"VAR motd": "hello world", b"VAR secret": P.CF_FAILEDSTR,
           b"CONTEXT web.*": "webserver,web_prod", b"CONTEXT none.*": P.CF_FAILEDSTR}


def _serve(tmp_path: Path) -> FakeServer:
    fake = FakeServer(lambda req: P.encode(ANSWERS.get(req, "BAD: ?").encode()))
    wd = tmp_path / "work"
    keys.ensure_host_key(str(wd))
    from cfpromise.net.client import current_user
    keys.trust_key(str(wd), fake.key.public_key(), user=current_user())
    return fake


def test_remotescalar_and_remoteclassesmatching(tmp_path):
    fake = _serve(tmp_path)
    server = f"127.0.0.1:{fake.port}"
    policy = f"""
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  vars:
      "motd" string => remotescalar("motd", "{server}", "yes");
      "secret" string => remotescalar("secret", "{server}", "no");
  classes:
      "got" expression => remoteclassesmatching("web.*", "{server}", "yes", "remote");
  reports:
      "motd=$(motd)";
      "secret=[$(secret)]";
    remote_webserver.remote_web_prod::
      "classes ok";
}}
"""
    try:
        code, out = run_agent(tmp_path, policy)
        # a refused value falls back to the last value received
        assert "R: motd=hello world" in out, out
        assert "R: secret=[]" in out
        assert "R: classes ok" in out
        ANSWERS[b"VAR motd"] = P.CF_FAILEDSTR
        code, out = run_agent(tmp_path, policy)
        assert "R: motd=hello world" in out, out
    finally:
        fake.close()
        ANSWERS[b"VAR motd"] = "hello world"


def test_unreachable_server_fails_the_call_cleanly(tmp_path):
    keys.ensure_host_key(str(tmp_path / "work"))
    policy = """
body common control { bundlesequence => { "main" }; }
bundle agent main
{
  vars:
      "v" string => remotescalar("x", "127.0.0.1:1", "no");
  reports:
      "v=$(v)";
}
"""
    code, out = run_agent(tmp_path, policy)
    assert "Traceback" not in out
    assert "R: v=$(v)" in out or "R: v=" not in out
